//go:build !novalidation

package registry

import (
	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/validation"
)

// validationAnalyzers are the API server validation analyzers. A build with
// the tag novalidation leaves them (and kube-apiserver's validation code)
// out; scripts/bench-analyze.sh measures their cost that way.
func validationAnalyzers() []analysis.Analyzer { return validation.Analyzers() }
