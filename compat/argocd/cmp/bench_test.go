package cmpcompat

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/argoproj/argo-cd/v2/pkg/apis/application/v1alpha1"
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
// and stream, unpack, process start, render, analysis, manifests back):
// routeguard as shipped beside the same plugin rendering only, so that the
// difference is what analysis costs, and beside a routeguard without the
// out-of-process Istio plugin (built-in analyzers only) to split that cost;
// all three discover like the shipped plugin.yaml, so a named Application
// pays one MatchRepository stream in each. The shipped spec without its
// discover block shows what that stream costs.
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
	for _, c := range apps {
		for _, plugin := range []string{pluginRenderOnly, pluginBuiltin, pluginShipped, pluginNamedOnly} {
			b.Run(c.name+"/"+plugin, func(b *testing.B) {
				a := c.a
				if c.name == "synthetic-1000" {
					a.root = syntheticRepo(b)
				}
				// FAIL_ON=never: measure the whole path to manifests even if
				// an analyzer has something to say about the app.
				a.plugin = &v1alpha1.ApplicationSourcePlugin{Name: plugin, Env: v1alpha1.Env{{Name: "FAIL_ON", Value: "never"}}}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					resp, err := generate(b, a)
					if err != nil {
						b.Fatal(err)
					}
					if len(resp.Manifests) == 0 {
						b.Fatal("no manifests")
					}
				}
			})
		}
	}
}
