package cmpcompat

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
)

var (
	synthOnce sync.Once
	synthRoot string
	synthErr  error
)

// syntheticRepo writes a repository holding one ~1,000-object routing app
// (apps/synth) with routeguard-synth (no injected dangling references).
func syntheticRepo(b *testing.B) string {
	synthOnce.Do(func() {
		synthRoot = filepath.Join(filepath.Dir(repoRoot), "synth-repo")
		if synthErr = os.MkdirAll(synthRoot, 0o755); synthErr != nil {
			return
		}
		synthErr = run(mainRoot, "go", "run", "./cmd/routeguard-synth", "-objects", "1000", "-dangling", "0", "-seed", "1",
			"-out", filepath.Join(synthRoot, "apps", "synth"))
	})
	if synthErr != nil {
		b.Fatalf("routeguard-synth: %v", synthErr)
	}
	return synthRoot
}

// BenchmarkGenerateManifest measures one GenerateManifest of the
// repo-server's code through the real argocd-cmp-server (repository tar
// and stream, unpack, process start, render, analysis, manifests back) for
// four plugin configs, interleaved in rotating order within every iteration
// so that a change in machine load hits all of them alike:
//
//	routeguard-render   routeguard render . (the baseline: rendering only)
//	routeguard-builtin  routeguard without routeguard-istio beside it
//	routeguard-v1       as shipped (built-in analyzers + the Istio plugin)
//	routeguard-discovery as shipped, with the opt-in discover block
//
// The first three have no discover block, as the shipped plugin.yaml; the
// fourth shows what the opt-in rule costs an Application that names the
// plugin (Argo CD asks a discovering plugin whether it matches: one more
// repository stream). Each reports <config>-ms/op; ns/op is the sum.
// scripts/bench-cmp.sh prints the table.
func BenchmarkGenerateManifest(b *testing.B) {
	apps := []struct {
		name string
		a    app
	}{
		{"example-gateways", app{name: "routing-gateways", namespace: "gateway-infra", path: "examples/apps/routing/gateways"}},
		{"example-edge", app{name: "edge", namespace: "edge", path: "examples/apps/edge"}},
		{"synthetic-1000", app{name: "synth", path: "apps/synth"}},
	}
	plugins := []string{pluginRenderOnly, pluginBuiltin, pluginShipped, pluginDiscovery}
	for _, c := range apps {
		b.Run(c.name, func(b *testing.B) {
			a := c.a
			if c.name == "synthetic-1000" {
				a.root = syntheticRepo(b)
			}
			total := make([]time.Duration, len(plugins))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for k := range plugins {
					j := (i + k) % len(plugins)
					// FAIL_ON=never: measure the whole path to manifests even
					// if an analyzer has something to say about the app.
					a.plugin = &v1alpha1.ApplicationSourcePlugin{Name: plugins[j], Env: v1alpha1.Env{{Name: "FAIL_ON", Value: "never"}}}
					start := time.Now()
					resp, err := generate(b, a)
					total[j] += time.Since(start)
					if err != nil {
						b.Fatalf("%s: %v", plugins[j], err)
					}
					if len(resp.Manifests) == 0 {
						b.Fatalf("%s: no manifests", plugins[j])
					}
				}
			}
			for j, p := range plugins {
				b.ReportMetric(float64(total[j].Milliseconds())/float64(b.N), p+"-ms/op")
			}
		})
	}
}
