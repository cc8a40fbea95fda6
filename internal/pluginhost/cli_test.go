package pluginhost_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/action"
	"github.com/routeguard/routeguard/internal/cli"
	"github.com/routeguard/routeguard/internal/pluginhost"
)

const route = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: storefront
  namespace: shop
spec:
  hostnames: ["pay.example.com"]
`

// analyze runs `routeguard analyze -o json apps/shop` in a repository
// whose .routeguard.yaml selects and configures team-hosts, which the
// operator's catalog ($ROUTEGUARD_PLUGINS, outside the repository) pins
// with the given sha256.
func analyze(t *testing.T, sum string) (map[string]any, string, int) {
	t.Helper()
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, "apps", "shop"), 0o755)
	os.WriteFile(filepath.Join(repo, "apps", "shop", "route.yaml"), []byte(route), 0o644)
	cfg := `plugins:
  items:
    - name: team-hosts
      config:
        teams: {shop: ["*.shop.example.com"]}
`
	os.WriteFile(filepath.Join(repo, ".routeguard.yaml"), []byte(cfg), 0o644)
	catalog := filepath.Join(t.TempDir(), "plugins.yaml")
	os.WriteFile(catalog, []byte(fmt.Sprintf("plugins:\n  items:\n    - name: team-hosts\n      path: %s\n      sha256: %s\n", pluginhost.TeamHostsBinary(), sum)), 0o644)
	var out, errb bytes.Buffer
	env := &cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string {
			return map[string]string{"PATH": "/usr/bin:/bin", "GITHUB_TOKEN": "x", action.PluginsEnv: catalog}[k]
		},
		Environ: func() []string { return nil },
		Getwd:   func() (string, error) { return repo, nil },
	}
	code := cli.Execute(context.Background(), []string{"analyze", "-o", "json", "--repo-root", repo, filepath.Join(repo, "apps", "shop")}, env)
	var doc map[string]any
	if out.Len() > 0 {
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatalf("stdout is not the json report: %v\n%s", err, out.String())
		}
	}
	return doc, errb.String(), code
}

func codes(doc map[string]any) []string {
	var out []string
	fs, _ := doc["findings"].([]any)
	for _, f := range fs {
		m, _ := f.(map[string]any)
		out = append(out, fmt.Sprint(m["code"]))
	}
	return out
}

func TestAnalyzeRunsPlugin(t *testing.T) {
	sum, err := pluginhost.SHA256(pluginhost.TeamHostsBinary())
	if err != nil {
		t.Fatal(err)
	}
	doc, stderr, code := analyze(t, sum)
	got := codes(doc)
	if code != cli.ExitFindings || !slices.Contains(got, "TH001") || !slices.Contains(got, "RG1008") || stderr != "" {
		t.Fatalf("exit %d, codes %v, stderr %q; want exit 1 with TH001 (plugin) and RG1008 (built-in)", code, got, stderr)
	}
}

func TestAnalyzePluginRefusedKeepsReport(t *testing.T) {
	doc, stderr, code := analyze(t, strings.Repeat("a", 64))
	got := codes(doc)
	if code != cli.ExitError {
		t.Errorf("exit %d, want 2 (onError: fail)", code)
	}
	if !strings.Contains(stderr, "routeguard: error: plugin plugin.team-hosts: refused to run") {
		t.Errorf("stderr = %q", stderr)
	}
	if !slices.Contains(got, "RG1008") || slices.Contains(got, "TH001") {
		t.Errorf("report codes %v: want the built-in findings kept and none from the refused plugin", got)
	}
}
