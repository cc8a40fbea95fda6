// Package charts fetches Helm charts from chart repositories (an index.yaml
// over https, or http from a loopback address) and OCI registries through
// the Helm SDK (repository index, version constraints, OCI registry
// client), and keeps them in a cache directory that later runs read
// without a network. Nothing is fetched without TLS from a host on the
// network (plaintext.go).
//
// One call serves every front door that needs a chart it cannot find in the
// repository: a Flux HelmRelease whose chart comes from a HelmRepository, an
// OCIRepository or a HelmChart, and a chart's dependencies: (what `helm
// dependency build` fetches) for the Argo CD repository build:
//
//	c := &charts.Cache{Dir: dir, Offline: !allowNetwork}
//	ch, err := c.Fetch(ctx, charts.Ref{RepoURL: "oci://ghcr.io/org/charts", Name: "app", Version: "^1.2"})
//	// ch.Path is a chart archive: loader.Load(ch.Path)
//
// Offline, Fetch resolves versions against what the cache recorded when it
// was filled (the repository's index, the registry's tags, the digest a tag
// pointed to), so an offline run renders exactly what the run that filled
// the cache rendered. A chart the cache does not hold is ErrNotCached.
package charts
