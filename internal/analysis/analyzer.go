package analysis

import (
	"context"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/manifest"
)

// Metadata describes an analyzer.
type Metadata struct {
	Name        string // "<pkg>.<Type>", e.g. "gatewayapi.BackendRefs"
	Description string // one sentence: what it checks
	// Doc says in full what it checks, which codes it reports and what it
	// assumes: its row in docs/analysis.md's table of analyzers
	// (internal/docgen).
	Doc    string
	Inputs []manifest.GroupKind // the kinds it reads
}

// Analyzer checks a rendered set and reports findings through the Context.
// Analyze returns an error only for an internal failure, never for a
// problem in the input (that is a finding).
type Analyzer interface {
	Metadata() Metadata
	Analyze(ctx context.Context, c *Context) error
}

// OutOfProcess is implemented by analyzers whose work runs in another
// process (plugins): the runner starts them before the others and does not
// count them against the processors it runs analyzers on, so a plugin
// process starts and works while the built-in analyzers run.
type OutOfProcess interface {
	OutOfProcess() bool
}

func outOfProcess(a Analyzer) bool {
	o, ok := a.(OutOfProcess)
	return ok && o.OutOfProcess()
}

// Long is implemented by analyzers that take a large share of a run's
// time on large inputs (the API server's validation of every object): the
// runner starts them right after the out-of-process ones, so that the
// short analyzers fill the other processors meanwhile instead of the
// longest starting last and running alone.
type Long interface {
	Long() bool
}

func long(a Analyzer) bool {
	l, ok := a.(Long)
	return ok && l.Long()
}

// SortAnalyzers sorts analyzers by name (each analyzer's Metadata asked
// once: some build their lists of kinds).
func SortAnalyzers(as []Analyzer) {
	type named struct {
		name string
		a    Analyzer
	}
	ns := make([]named, len(as))
	for i, a := range as {
		ns[i] = named{a.Metadata().Name, a}
	}
	slices.SortStableFunc(ns, func(x, y named) int { return strings.Compare(x.name, y.name) })
	for i, n := range ns {
		as[i] = n.a
	}
}
