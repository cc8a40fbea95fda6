// Package schema checks that routing objects say something: a missing spec,
// or a spec without any of the fields that make its kind do anything, is a
// finding naming the object's file:line. (Fields of the wrong type and
// unknown fields are the API server's validation, package
// internal/analysis/validation; RG0002 and RG0003, which this package
// reported from Go types, are retired.)
package schema

import "github.com/routeguard/routeguard/internal/analysis"

// Analyzers returns the package's analyzers.
func Analyzers() []analysis.Analyzer {
	return []analysis.Analyzer{EmptySpecs{}}
}
