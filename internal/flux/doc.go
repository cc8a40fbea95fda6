// Package flux builds what Flux's controllers would apply from a GitOps
// repository, offline, as a tree: the cluster directory as its sync
// Kustomization builds it, then every Kustomization and HelmRelease that
// build produces, in turn, from the object as the cluster would hold it
// (after its parent's patches and postBuild substitution), until nothing
// new appears. Kustomizations go through kustomize-controller's own
// generator and build (fluxcd/pkg/kustomize) and postBuild substitution
// (internal/substitute); HelmReleases through the Helm SDK with
// helm-controller's release naming, values, post-renderers and CRD policy,
// with charts from this repository or, through internal/charts, from Helm
// and OCI repositories; flux-operator ResourceSets through its template
// semantics (resourceset.go), their inputs combined as its controller
// combines them.
//
// The entry point is BuildTree. A Flux object that cannot be built is a
// finding (RG0101, RG0102) or, when routeguard cannot see its source, an
// RG0106 notice with an unrendered scope (so references into what it would
// create are "cannot check", never errors); everything else is still built.
//
// Sources: the GitRepository the cluster directory's sync uses is this
// checkout, and so is any GitRepository with the same URL and ref; other
// repositories, OCIRepositories, Buckets and ExternalArtifacts not made of
// this checkout are skipped unless Options.Sources maps them to a directory.
// ConfigMaps and Secrets that substituteFrom and valuesFrom name are looked
// up among everything the tree applies, the way the cluster would hold them.
package flux
