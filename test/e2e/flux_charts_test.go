package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/charts/chartstest"
)

// fluxChartRepo writes a Flux cluster whose HelmRelease "web" takes its
// chart from the HelmRepository at helmURL and whose HelmRelease "api"
// takes it from an OCIRepository at ociURL; an HTTPRoute routes to both
// releases' Services.
func fluxChartRepo(t *testing.T, helmURL, ociURL string) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"clusters/c/flux-system/kustomization.yaml": "resources: [gotk-sync.yaml]\n",
		"clusters/c/flux-system/gotk-sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 1m, url: "https://git.example.com/fleet.git", ref: {branch: main}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 10m, path: ./clusters/c, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
`,
		"clusters/c/apps.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec: {interval: 10m, path: ./apps, prune: true, targetNamespace: shop, sourceRef: {kind: GitRepository, name: flux-system}}
`,
		"apps/releases.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata: {name: charts}
spec: {interval: 1h, url: "` + helmURL + `"}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: web}
spec:
  interval: 1h
  chart: {spec: {chart: web, version: "1.x", sourceRef: {kind: HelmRepository, name: charts}}}
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata: {name: api-chart}
spec: {interval: 1h, url: "` + ociURL + `", insecure: true, ref: {tag: "0.4.0"}}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: api}
spec:
  interval: 1h
  chartRef: {kind: OCIRepository, name: api-chart}
`,
		"apps/routes.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: edge}
spec:
  gatewayClassName: edge
  listeners: [{name: http, protocol: HTTP, port: 80, hostname: shop.example.com}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop}
spec:
  parentRefs: [{name: edge}]
  hostnames: [shop.example.com]
  rules:
    - matches: [{path: {type: PathPrefix, value: /api}}]
      backendRefs: [{name: api, port: 80}]
    - backendRefs: [{name: web, port: 80}]
`,
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
	return root
}

// The same Flux cluster built with a cold cache and the network, then
// offline from the cache: equal output and no request; offline from an
// empty cache the releases are skipped (RG0106 info, the routes' backends
// RG0001 warnings), never errors.
func TestFluxChartCache(t *testing.T) {
	svc := map[string]string{"templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\n  labels: {chart: \"{{ .Chart.Version }}\"}\nspec:\n  ports: [{port: 80}]\n  selector: {app: {{ .Release.Name }}}\n"}
	repo := chartstest.NewRepo(t, chartstest.Chart("web", "1.0.0", svc), chartstest.Chart("web", "1.2.0", svc))
	reg := chartstest.NewRegistry(t)
	reg.Push(t, chartstest.Chart("api", "0.4.0", svc), "charts/api", "0.4.0")
	root := fluxChartRepo(t, repo.URL, "oci://"+reg.Host+"/charts/api")
	cache := t.TempDir()
	args := []string{"flux", "build", "--all", "--repo-root", root, "--chart-cache", cache, filepath.Join(root, "clusters/c")}

	cold := routeguard(t, nil, append(args, "--allow-network")...)
	if cold.code != 0 || !strings.Contains(cold.stderr, "rendered 2 HelmReleases") {
		t.Fatalf("cold, with the network: exit %d\nstderr:\n%s", cold.code, cold.stderr)
	}
	if !strings.Contains(cold.stdout, `chart: 1.2.0`) || !strings.Contains(cold.stdout, `chart: 0.4.0`) {
		t.Errorf("want web 1.2.0 (the newest 1.x) and api 0.4.0 rendered:\n%s", cold.stdout)
	}
	hits := repo.Hits() + reg.Hits()
	warm := routeguard(t, nil, args...)
	if warm.code != 0 || warm.stdout != cold.stdout {
		t.Errorf("offline from the warm cache differs (exit %d):\n%s\nstderr:\n%s", warm.code, warm.stdout, warm.stderr)
	}
	if n := repo.Hits() + reg.Hits(); n != hits {
		t.Errorf("offline run made %d requests", n-hits)
	}

	empty := routeguard(t, nil, "flux", "build", "--all", "--repo-root", root, "--chart-cache", t.TempDir(), "--report", "text", filepath.Join(root, "clusters/c"))
	if empty.code != 0 || !strings.Contains(empty.stdout, "RG0106") || !strings.Contains(empty.stdout, "RG0001") || strings.Contains(empty.stdout, "error RG") {
		t.Errorf("offline, empty cache: exit %d, want 0 with RG0106 and RG0001, no error\n%s\n%s", empty.code, empty.stdout, empty.stderr)
	}
}
