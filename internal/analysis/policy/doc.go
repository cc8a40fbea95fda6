// Package policy holds the analyzers GitOps guides ask for before a sync:
// no plain Secrets in Git, no mutable container images, and no custom
// resource synced before the CRD of its kind.
package policy

import "github.com/routeguard/routeguard/internal/analysis"

// Analyzers returns the package's analyzers.
func Analyzers() []analysis.Analyzer {
	return []analysis.Analyzer{CRDOrdering{}, Images{}, PlainSecrets{}}
}
