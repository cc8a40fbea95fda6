// Package registry lists every analyzer routeguard runs: the built-in ones,
// kept sorted by name, plus those added with analysis.Register (the Istio
// analyzer registers itself that way from its own package, so that linking
// Istio stays opt-in for the binary that imports it).
package registry

import (
	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/gatewayapi"
	"github.com/routeguard/routeguard/internal/analysis/ingress"
	"github.com/routeguard/routeguard/internal/analysis/istioroutes"
	"github.com/routeguard/routeguard/internal/analysis/policy"
	"github.com/routeguard/routeguard/internal/analysis/schema"
)

// Builtin returns the built-in analyzers, sorted by name.
func Builtin() []analysis.Analyzer {
	var as []analysis.Analyzer
	as = append(as, gatewayapi.Analyzers()...)
	as = append(as, ingress.Analyzers()...)
	as = append(as, istioroutes.Analyzers()...)
	as = append(as, policy.Analyzers()...)
	as = append(as, schema.Analyzers()...)
	as = append(as, validationAnalyzers()...)
	analysis.SortAnalyzers(as)
	return as
}

// All returns the built-in analyzers and the registered ones, sorted by name.
func All() []analysis.Analyzer {
	as := append(Builtin(), analysis.Registered()...)
	analysis.SortAnalyzers(as)
	return as
}
