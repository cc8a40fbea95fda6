package istio

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/synth"
)

func synthObjects(b *testing.B, objects int) []*manifest.Object { return synthObjectsT(b, objects) }

func synthObjectsT(b testing.TB, objects int) []*manifest.Object {
	b.Helper()
	opts := synth.Options{Dangling: objects / 200, Seed: 1}
	opts.Services = synth.ForObjects(objects, opts)
	repo, err := synth.Generate(opts)
	if err != nil {
		b.Fatal(err)
	}
	var objs []*manifest.Object
	for _, p := range slices.Sorted(maps.Keys(repo.Files)) {
		o, err := manifest.Decode(p, repo.Files[p])
		if err != nil {
			b.Fatal(err)
		}
		objs = append(objs, o...)
	}
	return objs
}

// BenchmarkAnalyze measures Istio's analyzers over synthetic repositories
// (the objects are decoded once, outside the timed loop).
func BenchmarkAnalyze(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			objs := synthObjects(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				fs, err := Analyze(context.Background(), objs, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if len(fs) == 0 {
					b.Fatal("no findings on a repository with dangling references")
				}
			}
		})
	}
}
