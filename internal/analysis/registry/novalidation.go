//go:build novalidation

package registry

import "github.com/routeguard/routeguard/internal/analysis"

// validationAnalyzers: none in a novalidation build (benchmarks only).
func validationAnalyzers() []analysis.Analyzer { return nil }
