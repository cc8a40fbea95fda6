// Package project reads Argo CD AppProjects and applies their rules to an
// Application and to what it renders, as Argo CD v3.5's controller applies
// them before a sync: sourceRepos (IsSourcePermitted), destinations
// (IsDestinationPermitted: server or name, namespace, globs and "!"
// denials), sourceNamespaces (IsAppNamespacePermitted), and the cluster and
// namespace resource white- and blacklists (IsGroupKindNamePermitted, with
// 3.x's name-level rules for cluster-scoped kinds). Each rule's code is
// transcribed from pkg/apis/application/v1alpha1 (app_project_types.go,
// types.go) with its glob semantics (util/glob over gobwas/glob,
// path/filepath.Match for kinds); compat/argocd/project runs one table of
// projects, objects and destinations through Argo CD's own methods and
// routeguard's binary and compares the verdicts one by one.
//
// A verdict names the rule that decided it (its field path, e.g.
// spec.destinations[2]) so that a finding can point at the project's
// file:line. What cannot be decided offline (a cluster's name that is not
// known, a kind whose scope no CRD tells, permitOnlyProjectScopedClusters)
// is "cannot check", never a refusal.
package project
