// Package appset expands Argo CD ApplicationSets offline, with the
// semantics of Argo CD's applicationset controller (v3.5): the list, git
// (directories and files of this checkout), cluster (from a given list),
// matrix and merge generators, post-generator selectors, generator
// templates, fasttemplate and Go templates (sprig without env, expandenv
// and getHostByName; normalize, slugify, toYaml, fromYaml, fromYamlArray)
// over every string and map key of the template, and templatePatch.
//
// Generators that need a live cluster or a service (scmProvider,
// pullRequest, clusterDecisionResource, plugin), a cluster generator when
// the clusters are not given, and git generators on other repositories
// cannot be expanded: Expand says so with an *UnsupportedError, and the
// caller reports a notice instead of guessing.
//
// Argo CD's controller works on typed structs; this package works on the
// decoded YAML (maps), which is equivalent for every field of the
// Application type.
package appset
