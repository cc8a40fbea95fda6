package pluginhost

import (
	"context"
	"fmt"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/plugins/sdk"
)

// routes returns n HTTPRoutes of a realistic size (~700 bytes of JSON),
// spread over 20 namespaces.
func routes(b *testing.B, n int) *manifest.Set {
	b.Helper()
	set := manifest.NewSet()
	for i := range n {
		ns := fmt.Sprintf("team-%02d", i%20)
		body := map[string]any{
			"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
			"metadata": map[string]any{"name": fmt.Sprintf("route-%05d", i), "namespace": ns,
				"labels": map[string]any{"app.kubernetes.io/name": "web", "app.kubernetes.io/part-of": "shop"}},
			"spec": map[string]any{
				"parentRefs": []any{map[string]any{"name": "edge", "namespace": "infra", "sectionName": "https"}},
				"hostnames":  []any{fmt.Sprintf("r%d.%s.example.com", i, ns)},
				"rules": []any{map[string]any{
					"matches":     []any{map[string]any{"path": map[string]any{"type": "PathPrefix", "value": "/api"}}},
					"backendRefs": []any{map[string]any{"name": "web-stable", "port": int64(8080), "weight": int64(90)}, map[string]any{"name": "web-canary", "port": int64(8080), "weight": int64(10)}},
				}},
			},
		}
		o, err := manifest.FromBody(body, manifest.Source{File: fmt.Sprintf("apps/%s/routes.yaml", ns), Line: 1 + 30*(i/20)})
		if err != nil {
			b.Fatal(err)
		}
		if err := set.Add(o); err != nil {
			b.Fatal(err)
		}
	}
	return set
}

var teamsConfig = map[string]any{"teams": map[string]any{"team-00": []any{"*.other.example.com"}}, "unlisted": "allow"}

// BenchmarkPluginRoundTrip10k is what a run pays for one plugin on an app
// of 10,000 objects: verify the team-hosts binary's checksum, start the
// process, handshake, metadata, send the objects, get the 500 findings
// back, convert them, stop the process.
func BenchmarkPluginRoundTrip10k(b *testing.B) {
	set := routes(b, 10000)
	cat := &config.Plugins{Items: []config.Plugin{{Name: "team-hosts", Path: bins.teams, SHA256: shaCache(bins.teams), Config: teamsConfig, Always: true}}}
	s, err := Load(Options{Set: set, Catalog: cat})
	if err != nil {
		b.Fatal(err)
	}
	c := analysis.NewContext(set, nil, "") // the runner builds it once for all analyzers
	b.ResetTimer()
	for range b.N {
		if err := s.Analyzers()[0].Analyze(context.Background(), c); err != nil || len(s.Failures()) > 0 {
			b.Fatal(err, s.Failures())
		}
	}
}

// BenchmarkPluginCall10k is the Analyze call alone on a running plugin:
// encode 10,000 objects, gRPC, decode, analyze, findings back.
func BenchmarkPluginCall10k(b *testing.B) {
	set := routes(b, 10000)
	sp := Spec{Name: "team-hosts", Path: bins.teams, SHA256: shaCache(bins.teams), Verify: true, Timeout: config.DefaultPluginTimeout}
	p, err := start(&sp, func(string) string { return "" })
	if err != nil {
		b.Fatal(err)
	}
	defer p.kill()
	req, err := request(analysis.NewContext(set, nil, ""), &sdk.Metadata{}, teamsConfig)
	if err != nil {
		b.Fatal(err)
	}
	enc, _ := sdk.EncodeRequest(req)
	b.SetBytes(int64(len(enc)))
	b.ResetTimer()
	for range b.N {
		fs, err := p.rpc.Analyze(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		if len(fs) != 500 {
			b.Fatalf("%d findings, want 500 (team-00's routes outside its domain)", len(fs))
		}
	}
}
