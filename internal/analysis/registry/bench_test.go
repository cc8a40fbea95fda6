package registry

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/synth"
)

// synthSet decodes a synthetic repository of about objects objects.
func synthSet(tb testing.TB, objects, dangling int) (*manifest.Set, *synth.Repo) {
	tb.Helper()
	opts := synth.Options{Dangling: dangling, Seed: 1}
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
	return set, repo
}

// TestSynthInjectedFound checks that every dangling reference injected into
// a synthetic repository is reported as an error, and nothing else is.
func TestSynthInjectedFound(t *testing.T) {
	set, repo := synthSet(t, 1000, 5)
	res, err := analysis.RunAnalyzers(context.Background(), analysis.RunOptions{Set: set, Analyzers: All()})
	if err != nil {
		t.Fatal(err)
	}
	errs := map[string]bool{}
	for _, f := range res.Findings {
		if f.Severity == analysis.SeverityError {
			errs[f.Object.String()] = true
		}
	}
	for _, r := range repo.Injected {
		if !errs[fmt.Sprint(r)] {
			t.Errorf("injected dangling reference in %v not reported", r)
		}
		delete(errs, fmt.Sprint(r))
	}
	for o := range errs {
		t.Errorf("error on %s, which has no injected fault", o)
	}
	if len(repo.Injected) != 15 {
		t.Errorf("expected 15 injected references, synth made %d", len(repo.Injected))
	}
}

// BenchmarkRun measures the built-in analyzers (rendering excluded) over
// synthetic repositories: go test -bench Run -benchmem ./internal/analysis/registry
func BenchmarkRun(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		set, _ := synthSet(b, n, n/200)
		b.Run(fmt.Sprintf("objects=%d", set.Len()), func(b *testing.B) {
			for b.Loop() {
				if _, err := analysis.RunAnalyzers(context.Background(), analysis.RunOptions{Set: set, Analyzers: All()}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
