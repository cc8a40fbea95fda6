// Package registry lists the analyzers routeguard runs in process, kept
// sorted by name. Istio's analyzers are not among them: they link Istio and
// run in the routeguard-istio plugin (a binary that wants them in process,
// such as the benchmark's routeguard-inproc, passes them to the pipeline).
package registry

import (
	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/gatewayapi"
	"github.com/routeguard/routeguard/internal/analysis/ingress"
	"github.com/routeguard/routeguard/internal/analysis/istioroutes"
	"github.com/routeguard/routeguard/internal/analysis/policy"
	"github.com/routeguard/routeguard/internal/analysis/schema"
)

// All returns the built-in analyzers, sorted by name.
func All() []analysis.Analyzer {
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
