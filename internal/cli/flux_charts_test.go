package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/charts/chartstest"
)

// TestFluxBuildChartCache: the same cluster built through the CLI with a
// cold --chart-cache and --allow-network (charts on a loopback chart
// repository and an in-process OCI registry), then offline from the cache:
// equal output, no request; --verbose names every node with its status.
func TestFluxBuildChartCache(t *testing.T) {
	route := map[string]string{
		"templates/route.yaml": "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: {{ .Release.Name }}}\n" +
			"spec:\n  hostnames: [\"{{ .Release.Name }}.example.com\"]\n  parentRefs: [{name: gw}]\n  rules: [{backendRefs: [{name: {{ .Release.Name }}, port: 80}]}]\n",
		"templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: {{ .Release.Name }}}\nspec: {ports: [{port: 80}]}\n",
		"templates/gw.yaml":  "{{- if .Values.gateway }}\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw}\nspec:\n  gatewayClassName: c\n  listeners: [{name: http, port: 80, protocol: HTTP}]\n{{- end }}\n",
		"values.yaml":        "gateway: false\n",
	}
	repo := chartstest.NewRepo(t, chartstest.Chart("web", "1.0.0", route))
	reg := chartstest.NewRegistry(t)
	reg.Push(t, chartstest.Chart("api", "2.0.0", route), "charts/api", "2.0.0")
	root := t.TempDir()
	files := map[string]string{
		"clusters/c/flux-system/kustomization.yaml": "resources: [sync.yaml]\n",
		"clusters/c/flux-system/sync.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: flux-system, namespace: flux-system}\nspec: {interval: 1m, url: \"https://example.com/c.git\"}\n---\n" +
			"apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: flux-system, namespace: flux-system}\nspec: {interval: 10m, path: ./clusters/c, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}\n",
		"clusters/c/releases.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata: {name: charts, namespace: apps}\nspec: {interval: 1h, url: \"" + repo.URL + "\"}\n---\n" +
			"apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: web, namespace: apps}\nspec:\n  interval: 10m\n  chart: {spec: {chart: web, sourceRef: {kind: HelmRepository, name: charts}}}\n  values: {gateway: true}\n---\n" +
			"apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata: {name: api, namespace: apps}\nspec: {interval: 1h, url: \"oci://" + reg.Host + "/charts/api\", insecure: true, ref: {tag: 2.0.0}}\n---\n" +
			"apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: api, namespace: apps}\nspec:\n  interval: 10m\n  chartRef: {kind: OCIRepository, name: api}\n",
	}
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := t.TempDir()
	cluster := filepath.Join(root, "clusters/c")
	cold, stderr, code := runCLI(t, "", "flux", "build", "--all", "-v", "--allow-network", "--chart-cache", cache, "--repo-root", root, cluster)
	if code != ExitOK {
		t.Fatalf("cold: exit %d:\n%s", code, stderr)
	}
	for _, w := range []string{"rendered 2 HelmReleases, skipped 0", "HelmRelease apps/web built in", "HelmRelease apps/api built in", "Kustomization flux-system/flux-system built in"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("cold stderr lacks %q:\n%s", w, stderr)
		}
	}
	if !strings.Contains(cold, "kind: HTTPRoute") || !strings.Contains(cold, "name: api") {
		t.Errorf("cold output lacks the charts' objects:\n%s", cold)
	}
	hits := repo.Hits() + reg.Hits()
	warm, stderr, code := runCLI(t, "", "flux", "build", "--all", "--chart-cache", cache, "--repo-root", root, cluster)
	if code != ExitOK || warm != cold {
		t.Fatalf("offline from the cache: exit %d, equal output %v:\n%s", code, warm == cold, stderr)
	}
	if repo.Hits()+reg.Hits() != hits {
		t.Errorf("the offline run reached the repositories")
	}
	_, stderr, _ = runCLI(t, "", "flux", "build", "--all", "--repo-root", root, cluster)
	if !strings.Contains(stderr, "skipped 2 (2 chart needs the network)") || !strings.Contains(stderr, "info RG0106 HelmRelease apps/web") {
		t.Errorf("no cache, no network:\n%s", stderr)
	}
}
