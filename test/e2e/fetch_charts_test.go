package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/routeguard/routeguard/internal/charts/chartstest"
)

// remoteBases serves a manifest for any path and counts the requests: the
// place a remote Kustomize base (an HTTP resource, a git URL) points to.
func remoteBases(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fetched-remotely}\ndata: {a: b}\n"))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// --fetch-charts fetches the charts a Flux tree declares and nothing else:
// the HelmRelease renders from the loopback chart repository, while the
// Kustomizations whose kustomization.yaml names a remote resource and a
// git base stay offline (no request reaches their server; with
// --allow-network one does, so the URLs are ones Kustomize would fetch).
func TestFluxFetchChartsOnly(t *testing.T) {
	svc := map[string]string{"templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\n  labels: {chart: \"{{ .Chart.Version }}\"}\nspec:\n  ports: [{port: 80}]\n  selector: {app: {{ .Release.Name }}}\n"}
	repo := chartstest.NewRepo(t, chartstest.Chart("web", "1.0.0", svc), chartstest.Chart("web", "1.2.0", svc))
	reg := chartstest.NewRegistry(t)
	reg.Push(t, chartstest.Chart("api", "0.4.0", svc), "charts/api", "0.4.0")
	root := fluxChartRepo(t, repo.URL, "oci://"+reg.Host+"/charts/api")
	bases, hits := remoteBases(t)
	writeFiles(t, root, map[string]string{
		"clusters/c/remote.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: remote, namespace: flux-system}
spec: {interval: 10m, path: ./remote, prune: true, targetNamespace: shop, sourceRef: {kind: GitRepository, name: flux-system}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: remote-git, namespace: flux-system}
spec: {interval: 10m, path: ./remote-git, prune: true, targetNamespace: shop, sourceRef: {kind: GitRepository, name: flux-system}}
`,
		"remote/kustomization.yaml":     "resources:\n  - local.yaml\n  - " + bases.URL + "/base.yaml\n",
		"remote/local.yaml":             "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: local}\ndata: {a: b}\n",
		"remote-git/kustomization.yaml": "resources:\n  - git::" + bases.URL + "/org/repo.git//deploy?ref=main\n",
	})
	cluster := filepath.Join(root, "clusters/c")
	args := []string{"flux", "build", "--all", "--repo-root", root, cluster}

	r := routeguard(t, nil, append(args, "--fetch-charts")...)
	if r.code != 0 || !strings.Contains(r.stderr, "rendered 2 HelmReleases") {
		t.Fatalf("--fetch-charts: exit %d, want 0 with both releases rendered\nstderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "chart: 1.2.0") || !strings.Contains(r.stdout, "chart: 0.4.0") {
		t.Errorf("--fetch-charts: want web 1.2.0 and api 0.4.0 rendered:\n%s", r.stdout)
	}
	if repo.Hits() == 0 || reg.Hits() == 0 {
		t.Errorf("--fetch-charts: the chart repository (%d requests) and the registry (%d) were not asked", repo.Hits(), reg.Hits())
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("--fetch-charts fetched remote Kustomize bases: %d requests reached their server", n)
	}
	if !strings.Contains(r.stderr, bases.URL+"/base.yaml") || !strings.Contains(r.stderr, "--allow-network") {
		t.Errorf("--fetch-charts: the remote base left out is not named, with what would fetch it:\n%s", r.stderr)
	}
	if strings.Contains(r.stdout, "fetched-remotely") {
		t.Errorf("--fetch-charts: the remote resource is in the output:\n%s", r.stdout)
	}

	// The same URLs are what Kustomize fetches with the network allowed.
	if all := routeguard(t, nil, append(args, "--allow-network", "--analyze=false")...); hits.Load() == 0 {
		t.Errorf("--allow-network: no request reached the remote bases' server (exit %d)\n%s", all.code, all.stderr)
	}
}

// Offline, a HelmRelease whose chart is in a chart repository is RG0106: a
// warning when it holds routing (app-template's route in its values), an
// info when it shows none; the summary counts both and the routing left
// unchecked, and with --fetch-charts both render.
func TestFluxChartNotFetchedSeverity(t *testing.T) {
	svc := map[string]string{"templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  ports: [{port: 80}]\n  selector: {app: {{ .Release.Name }}}\n"}
	repo := chartstest.NewRepo(t, chartstest.Chart("web", "1.0.0", svc), chartstest.Chart("db", "2.0.0", svc))
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"clusters/c/apps.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata: {name: charts, namespace: flux-system}
spec: {interval: 1h, url: "` + repo.URL + `"}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: web, namespace: shop}
spec:
  interval: 1h
  chart: {spec: {chart: web, version: "1.x", sourceRef: {kind: HelmRepository, name: charts, namespace: flux-system}}}
  values:
    route:
      main:
        hostnames: [shop.example.com]
        parentRefs: [{name: edge, namespace: shop}]
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: db, namespace: shop}
spec:
  interval: 1h
  chart: {spec: {chart: db, version: "2.x", sourceRef: {kind: HelmRepository, name: charts, namespace: flux-system}}}
  values: {persistence: {size: 1Gi}}
`,
		"clusters/c/routes.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: edge, namespace: shop}
spec:
  gatewayClassName: edge
  listeners: [{name: http, protocol: HTTP, port: 80, hostname: shop.example.com}]
`,
	})
	args := []string{"flux", "build", "--all", "--repo-root", root, "--report", "json", filepath.Join(root, "clusters/c")}
	off := routeguard(t, nil, args...)
	if off.code != 0 || repo.Hits() != 0 {
		t.Fatalf("offline: exit %d, %d requests; want 0 and none\n%s\n%s", off.code, repo.Hits(), off.stdout, off.stderr)
	}
	web := findingLine(off.stdout, "RG0106", "web")
	db := findingLine(off.stdout, "RG0106", "db")
	if !strings.Contains(web, `"severity": "warning"`) || !strings.Contains(web, "spec.values.route") {
		t.Errorf("offline: the release with routing values is not an RG0106 warning naming them: %s\n%s", web, off.stdout)
	}
	if !strings.Contains(db, `"severity": "info"`) {
		t.Errorf("offline: the release without routing is not an RG0106 info: %s\n%s", db, off.stdout)
	}
	if want := "2 HelmReleases or Helm sources not rendered because their charts were not fetched: 1 of them hold routing, 1 routing files or values not checked; pass --fetch-charts"; !strings.Contains(off.stderr, want) {
		t.Errorf("offline summary does not say %q:\n%s", want, off.stderr)
	}
	if strict := routeguard(t, nil, append(args, "--fail-on", "warning")...); strict.code != 1 {
		t.Errorf("offline --fail-on warning: exit %d, want 1 (the release with routing is a warning)", strict.code)
	}

	on := routeguard(t, nil, append(args, "--fetch-charts")...)
	if on.code != 0 || strings.Contains(on.stdout, "RG0106") || strings.Contains(on.stderr, "not fetched") {
		t.Errorf("--fetch-charts: exit %d, want both releases rendered\n%s\n%s", on.code, on.stdout, on.stderr)
	}
}

// findingLine returns the JSON finding object (as text) with code whose
// object is named name, or "".
func findingLine(report, code, name string) string {
	for _, part := range strings.Split(report, "\n    {") {
		if strings.Contains(part, `"code": "`+code+`"`) && strings.Contains(part, `"name": "`+name+`"`) {
			return part
		}
	}
	return ""
}

// argocd analyze --fetch-charts renders a chart source from the loopback
// chart repository while an Application whose kustomization names a
// remote resource stays offline (no request reaches its server).
func TestArgoCDFetchChartsOnly(t *testing.T) {
	svc := map[string]string{"templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\n  namespace: {{ .Release.Namespace }}\nspec:\n  ports: [{port: 80}]\n  selector: {app: web}\n"}
	repo := chartstest.NewRepo(t, chartstest.Chart("web", "1.0.0", svc))
	root := chartRouteRepo(t, repo.URL)
	bases, hits := remoteBases(t)
	writeFiles(t, root, map[string]string{
		"argocd/remote.yaml": `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: remote, namespace: argocd}
spec:
  project: default
  source: {repoURL: https://git.example.com/gitops.git, targetRevision: main, path: remote}
  destination: {server: https://kubernetes.default.svc, namespace: shop}
`,
		"remote/kustomization.yaml": "resources:\n  - local.yaml\n  - " + bases.URL + "/base.yaml\n",
		"remote/local.yaml":         "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: local}\ndata: {a: b}\n",
	})
	args := []string{"argocd", "analyze", root, "--repo-root", root, "--repo-url", "https://git.example.com/gitops.git"}
	off := routeguard(t, nil, args...)
	if !strings.Contains(off.stdout, "RG0001") || !strings.Contains(off.stderr, "1 HelmReleases or Helm sources not rendered because their charts were not fetched") {
		t.Fatalf("offline: want the chart source skipped, counted in the summary, and RG0001 (exit %d)\n%s\n%s", off.code, off.stdout, off.stderr)
	}
	r := routeguard(t, nil, append(args, "--fetch-charts")...)
	if r.code != 0 || strings.Contains(r.stdout, "RG0001") || repo.Hits() == 0 {
		t.Fatalf("--fetch-charts: exit %d, %d chart requests; want the chart rendered and the route's backend found\n%s\n%s", r.code, repo.Hits(), r.stdout, r.stderr)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("--fetch-charts fetched a remote Kustomize resource: %d requests reached its server", n)
	}
	if !strings.Contains(r.stderr, bases.URL+"/base.yaml") {
		t.Errorf("--fetch-charts: the remote resource left out is not named:\n%s", r.stderr)
	}
}
