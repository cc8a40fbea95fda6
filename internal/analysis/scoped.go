package analysis

import "github.com/routeguard/routeguard/internal/manifest"

// ClusterScoped returns the cluster-scoped kinds routeguard knows: the
// built-in ones and those the sets' CustomResourceDefinitions declare with
// scope Cluster. Objects of other kinds are namespaced.
func ClusterScoped(sets ...*manifest.Set) map[manifest.GroupKind]bool {
	return clusterScopedKinds(sets...)
}
