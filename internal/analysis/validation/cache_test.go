package validation

import (
	"context"
	"slices"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/analysistest"
	"github.com/routeguard/routeguard/internal/resultcache"
)

// compiledAfter is CustomResources, recording whether the app's Widget CRD
// (version v1) was compiled by the run.
type compiledAfter struct {
	CustomResources
	compiled *bool
}

func (a compiledAfter) Analyze(ctx context.Context, c *analysis.Context) error {
	err := a.CustomResources.Analyze(ctx, c)
	cands := catalog(c).Lookup("example.com", "Widget")
	*a.compiled = len(cands) == 1 && cands[0].CRD != nil && cands[0].CRD.Compiled("v1")
	return err
}

// TestWarmCacheCompilesNothing: with every result in the cache, the CRD is
// not compiled and the findings are those of the cold run; an object the
// cache misses compiles it again.
func TestWarmCacheCompilesNothing(t *testing.T) {
	rc, err := resultcache.Open(t.TempDir(), resultcache.Options{Build: "test"})
	if err != nil {
		t.Fatal(err)
	}
	run := func(files ...string) ([]string, bool) {
		t.Helper()
		var compiled bool
		res, err := analysis.RunAnalyzers(context.Background(), analysis.RunOptions{
			Set:         analysistest.Load(t, files...),
			Analyzers:   []analysis.Analyzer{compiledAfter{compiled: &compiled}},
			ResultCache: rc,
		})
		if err != nil {
			t.Fatal(err)
		}
		return analysistest.Keys(res.Findings), compiled
	}
	cold, compiled := run("app_crd.yaml")
	if !compiled {
		t.Fatal("the cold run did not compile the CRD (the probe is broken)")
	}
	if len(cold) == 0 {
		t.Fatal("the cold run found nothing: app_crd.yaml has violations")
	}
	warm, compiled := run("app_crd.yaml")
	if compiled {
		t.Error("the warm run compiled the CRD although every result came from the cache")
	}
	if !slices.Equal(warm, cold) {
		t.Errorf("warm findings %v, cold %v", warm, cold)
	}
	more, compiled := run("app_crd.yaml", "app_crd_objects.yaml")
	if !compiled {
		t.Error("an object the cache misses did not compile the CRD")
	}
	if !slices.Contains(more, "RG5001 Widget apps/tiny") {
		t.Errorf("the missed object was not validated: %v", more)
	}
}
