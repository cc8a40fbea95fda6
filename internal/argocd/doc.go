// Package argocd builds a repository's Argo CD Applications as Argo CD
// would and groups what they render by cluster, so that the objects of all
// Applications of one cluster are analyzed together.
//
// Build starts from Application and ApplicationSet manifests (an
// app-of-apps root, or every manifest under a directory), expands
// ApplicationSets offline (package appset), renders each Application whose
// sources are in this repository with Argo CD's source options (Helm,
// Kustomize, directory with jsonnet, routeguard's own plugin source) and
// follows the Applications and ApplicationSets that Applications render
// (app of apps). Sources it cannot render (other repositories, chart
// repositories without a chart source, generators that need a cluster)
// are skipped with a notice, and what they would deploy becomes an
// unrendered scope: references into it are "cannot check", never errors.
//
// Analyze then takes each cluster's objects through the pipeline in one
// run and names each finding's Application.
package argocd
