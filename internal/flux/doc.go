// Package flux builds what Flux's controllers would apply from a GitOps
// repository, offline: Kustomizations through kustomize-controller's own
// generator and build (fluxcd/pkg/kustomize) and postBuild substitution
// (internal/substitute), HelmReleases whose chart is in the repository
// through the Helm SDK with helm-controller's release naming, values and
// post-renderers. The repository is the GitRepository's content: spec.path
// of a Kustomization is relative to the repository root. ConfigMaps and
// Secrets that substituteFrom and valuesFrom name are looked up among the
// objects under the cluster directory, the way they would be in the cluster
// after the cluster's own Kustomization applied them.
package flux
