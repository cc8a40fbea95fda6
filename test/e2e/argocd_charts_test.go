package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/charts/chartstest"
)

// chartRouteRepo writes a repository whose Application "web" deploys a
// chart from the chart repository at repoURL (the Service "web" in
// namespace shop), and whose Application "routes" routes to that Service.
func chartRouteRepo(t *testing.T, repoURL string) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"argocd/web.yaml": `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: web, namespace: argocd}
spec:
  project: default
  source: {repoURL: "` + repoURL + `", chart: web, targetRevision: "^1.0.0"}
  destination: {server: https://kubernetes.default.svc, namespace: shop}
`,
		"argocd/routes.yaml": `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: routes, namespace: argocd}
spec:
  project: default
  source: {repoURL: https://git.example.com/gitops.git, targetRevision: main, path: routes}
  destination: {server: https://kubernetes.default.svc, namespace: shop}
`,
		"routes/gateway.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: edge, namespace: shop}
spec:
  gatewayClassName: edge
  listeners:
    - {name: http, protocol: HTTP, port: 80, hostname: shop.example.com}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: shop}
spec:
  parentRefs: [{name: edge}]
  hostnames: [shop.example.com]
  rules:
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

// A chart source through --chart-cache: offline from a cold cache the
// Application is skipped with a notice naming it and its chart, the
// route's backend cannot be checked (RG0001, a warning: exit 0, exit 1
// with --fail-on warning), never an error; with --allow-network the chart
// is fetched into the cache and the route resolves; then offline from the
// warm cache the same build, without a request.
func TestArgoCDChartCache(t *testing.T) {
	svc := map[string]string{"templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\n  namespace: {{ .Release.Namespace }}\n  labels: {chart: \"{{ .Chart.Version }}\"}\nspec:\n  ports: [{port: 80}]\n  selector: {app: web}\n"}
	repo := chartstest.NewRepo(t, chartstest.Chart("web", "1.0.0", svc), chartstest.Chart("web", "1.1.0", svc))
	root := chartRouteRepo(t, repo.URL)
	cache := t.TempDir()
	args := []string{"argocd", "analyze", root, "--repo-root", root, "--chart-cache", cache}

	cold := routeguard(t, nil, args...)
	if cold.code != 0 || !strings.Contains(cold.stdout, "RG0001") {
		t.Fatalf("cold offline: exit %d, want 0 with RG0001\nstdout:\n%s\nstderr:\n%s", cold.code, cold.stdout, cold.stderr)
	}
	if !strings.Contains(cold.stderr, "Application argocd/web: skipped: chart web ^1.0.0 from "+repo.URL) || !strings.Contains(cold.stderr, "--fetch-charts") {
		t.Errorf("cold offline: no notice naming the Application, its chart and what to do:\n%s", cold.stderr)
	}
	if repo.Hits() != 0 {
		t.Errorf("offline run made %d requests", repo.Hits())
	}
	if strict := routeguard(t, nil, append(args, "--fail-on", "warning")...); strict.code != 1 {
		t.Errorf("cold offline --fail-on warning: exit %d, want 1", strict.code)
	}

	online := routeguard(t, nil, append(args, "--allow-network")...)
	if online.code != 0 || strings.Contains(online.stdout, "RG0001") {
		t.Fatalf("online: exit %d, want 0 without RG0001\nstdout:\n%s\nstderr:\n%s", online.code, online.stdout, online.stderr)
	}
	buildArgs := []string{"argocd", "build", root, "--repo-root", root, "--chart-cache", cache, "-o", "json"}
	fetched := routeguard(t, nil, append(buildArgs, "--allow-network")...)
	hits := repo.Hits()
	warm := routeguard(t, nil, buildArgs...)
	if fetched.code != 0 || warm.code != 0 || warm.stdout != fetched.stdout {
		t.Errorf("warm offline build differs from the online one (exit %d, %d)\nonline:\n%s\noffline:\n%s\n%s", fetched.code, warm.code, fetched.stdout, warm.stdout, warm.stderr)
	}
	if !strings.Contains(warm.stdout, `"chart":"1.1.0"`) && !strings.Contains(warm.stdout, `"chart": "1.1.0"`) {
		t.Errorf("want web 1.1.0 (the newest ^1.0.0) rendered:\n%s", warm.stdout)
	}
	if repo.Hits() != hits {
		t.Errorf("offline run from the warm cache made %d requests", repo.Hits()-hits)
	}
}
