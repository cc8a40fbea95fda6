package health

import (
	"context"
	"strings"
	"testing"
)

// benchFixtures picks, per kind, its first Healthy fixture: the common case on
// a refresh, and the one that walks every condition.
func benchFixtures(b *testing.B) []fixture {
	var out []fixture
	seen := map[string]bool{}
	for _, f := range loadFixtures(b) {
		if !seen[f.check.Dir] && f.test.HealthStatus.Status == "Healthy" && f.test.Flux == nil {
			seen[f.check.Dir] = true
			out = append(out, f)
		}
	}
	return out
}

func benchName(f fixture) string { return strings.ReplaceAll(f.check.Dir, "/", "_") }

// BenchmarkCEL evaluates each kind's healthCheckExprs with
// fluxcd/pkg/runtime/cel's StatusEvaluator, as kustomize-controller does on
// every health poll (expressions parsed once, evaluated per object).
func BenchmarkCEL(b *testing.B) {
	ctx := context.Background()
	for _, f := range benchFixtures(b) {
		ev, err := NewEvaluator(f.check)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(benchName(f), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if r := ev.Evaluate(ctx, f.obj); r.Status != "Current" {
					b.Fatalf("got %s %v", r.Status, r.Err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "evals/s")
		})
	}
}

// BenchmarkLua evaluates each kind's Lua check in routeguard's copy of
// Argo CD's VM set-up (a new VM per evaluation, as Argo CD does); the
// figures that count are compat/argocd/luahealth's BenchmarkArgoCDLua.
func BenchmarkLua(b *testing.B) {
	ctx := context.Background()
	for _, f := range benchFixtures(b) {
		b.Run(benchName(f), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if v, err := EvalLua(ctx, f.check.Lua, f.obj); err != nil || v.Status != "Healthy" {
					b.Fatalf("got %+v %v", v, err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "evals/s")
		})
	}
}
