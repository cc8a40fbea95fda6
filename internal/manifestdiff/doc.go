// Package manifestdiff is the manifest review of a pull request: for each
// app (an Argo CD Application, a Flux Kustomization or HelmRelease, an app
// path) whose rendered objects differ between two revisions, a unified
// diff of those objects, one per object (apiVersion, kind, namespace,
// name), in a stable order, added and removed objects shown whole.
//
// Before comparing, both revisions' objects go through the same noise
// filters (the helm.sh/chart and app.kubernetes.io/version labels,
// checksum/* annotations, an Argo CD Application's ignoreDifferences, the
// user's JSON pointers) and every value of a Secret's data and stringData
// is redacted as Argo CD redacts it, with a mark that says whether it
// changed. The diff is Myers' over lines with a bound on its cost: an
// object larger than the cap is not diffed, and the result says so.
//
// The package is pure: objects in, a Result out, written as text,
// Markdown (within a comment's budget) or JSON.
package manifestdiff
