// Package analysistest runs analyzers over testdata files for test grids:
// each case names input files and the findings expected, as
// "CODE Kind ns/name" strings, compared exactly (order-insensitive).
package analysistest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Case is one row of a grid.
type Case struct {
	Name    string   // scenario
	Files   []string // input files under testdata/
	Context []string // files under testdata/ loaded as context objects
	Want    []string // "CODE Kind ns/name", one per expected finding
	// Unrendered are the run's unrendered scopes (RunOptions.Unrendered).
	Unrendered []analysis.UnrenderedScope
	// Cluster is the target cluster (RunOptions.Cluster).
	Cluster analysis.Cluster
}

// Load decodes files (relative to testdata/) into a set.
func Load(t testing.TB, files ...string) *manifest.Set {
	t.Helper()
	return loadIn(t, "testdata", files...)
}

func loadIn(t testing.TB, dir string, files ...string) *manifest.Set {
	t.Helper()
	s := manifest.NewSet()
	for _, f := range files {
		p := filepath.Join(dir, f)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := manifest.Decode(p, data)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AddAll(objs); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// Run runs a over every case and compares the findings.
func Run(t *testing.T, a analysis.Analyzer, cases []Case) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) { runCase(t, a, "testdata", tc) })
	}
}

// Analyze runs a over files (and context files) and returns the result.
func Analyze(t testing.TB, a analysis.Analyzer, files, contextFiles []string) *analysis.Result {
	t.Helper()
	return AnalyzeIn(t, a, files, contextFiles, analysis.Cluster{})
}

// AnalyzeIn is Analyze for a target cluster.
func AnalyzeIn(t testing.TB, a analysis.Analyzer, files, contextFiles []string, cluster analysis.Cluster) *analysis.Result {
	t.Helper()
	return analyzeIn(t, "testdata", analysis.RunOptions{Analyzers: []analysis.Analyzer{a}, Cluster: cluster}, files, contextFiles)
}

// analyzeIn runs opts with its Set and ContextSet loaded from files and
// contextFiles under dir.
func analyzeIn(t testing.TB, dir string, opts analysis.RunOptions, files, contextFiles []string) *analysis.Result {
	t.Helper()
	opts.Set = loadIn(t, dir, files...)
	if len(contextFiles) > 0 {
		opts.ContextSet = loadIn(t, dir, contextFiles...)
	}
	res, err := analysis.RunAnalyzers(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Keys returns "CODE Kind ns/name" for each finding, sorted.
func Keys(fs []analysis.Finding) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, f.Code+" "+f.Object.String())
	}
	slices.Sort(out)
	return out
}

// Messages renders findings one per line for failure output.
func Messages(fs []analysis.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("  " + f.Source.String() + ": " + f.Code + " " + f.Object.String() + ": " + f.Message + "\n")
	}
	return b.String()
}
