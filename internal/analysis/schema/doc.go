// Package schema checks that objects of the kinds routeguard reasons about
// decode as their kind: a field of the wrong type (a string where a list
// belongs), an unknown field, or an empty spec is a finding naming the
// field and the object's file:line, never a panic. The other analyzers read
// fields leniently and rely on this one to report malformed input.
package schema

import "github.com/routeguard/routeguard/internal/analysis"

// Analyzers returns the package's analyzers.
func Analyzers() []analysis.Analyzer {
	return []analysis.Analyzer{EmptySpecs{}, Types{}}
}
