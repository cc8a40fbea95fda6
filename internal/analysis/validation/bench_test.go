package validation

import (
	"context"
	"slices"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/synth"
)

func synthSet(tb testing.TB, objects int) *manifest.Set {
	tb.Helper()
	opts := synth.Options{Seed: 1}
	opts.Services = synth.ForObjects(objects, opts)
	repo, err := synth.Generate(opts)
	if err != nil {
		tb.Fatal(err)
	}
	paths := make([]string, 0, len(repo.Files))
	for p := range repo.Files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	set := manifest.NewSet()
	for _, p := range paths {
		objs, err := manifest.Decode(p, repo.Files[p])
		if err != nil {
			tb.Fatal(err)
		}
		if err := set.AddAll(objs); err != nil {
			tb.Fatal(err)
		}
	}
	return set
}

// BenchmarkValidation runs each validation analyzer over a synthetic
// repository of 10,000 objects (compiled CRDs are cached by then, as in a
// long-running process after the first run).
func BenchmarkValidation(b *testing.B) {
	set := synthSet(b, 10000)
	for _, a := range Analyzers() {
		b.Run(a.Metadata().Name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				res, err := analysis.RunAnalyzers(context.Background(), analysis.RunOptions{Set: set, Analyzers: []analysis.Analyzer{a}})
				if err != nil || len(res.Findings) != 0 {
					b.Fatalf("%v %v", err, res.Findings)
				}
			}
		})
	}
}
