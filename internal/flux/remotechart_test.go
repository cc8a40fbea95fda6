package flux

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	repo "helm.sh/helm/v4/pkg/repo/v1"

	"github.com/routeguard/routeguard/internal/manifest"
)

// chartRepo serves testdata/repo/charts/web as a Helm chart repository on
// loopback (index.yaml and the packaged chart).
func chartRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ch, err := loader.Load("testdata/repo/charts/web")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chartutil.Save(ch, dir); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	idx, err := repo.IndexDirectory(dir, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if err := idx.WriteFile(filepath.Join(dir, "index.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	return srv.URL
}

func TestHelmRepositoryChart(t *testing.T) {
	url := chartRepo(t)
	root := t.TempDir()
	cluster := filepath.Join(root, "clusters", "net")
	os.MkdirAll(cluster, 0o755)
	doc := `apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: charts
  namespace: flux-system
spec:
  url: ` + url + `
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: remote
  namespace: apps
spec:
  chart:
    spec:
      chart: web
      version: 0.1.x
      sourceRef:
        kind: HelmRepository
        name: charts
        namespace: flux-system
  values:
    replicas: 4
`
	if err := os.WriteFile(filepath.Join(cluster, "hr.yaml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	inv, err := Scan(root, cluster)
	if err != nil {
		t.Fatal(err)
	}
	hr := inv.HelmReleases[0]

	b, err := inv.BuildObject(context.Background(), hr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Set != nil || !strings.Contains(b.Skipped, "pass --allow-network") {
		t.Fatalf("offline: want a skip naming --allow-network, got %q", b.Skipped)
	}

	b, err = inv.BuildObject(context.Background(), hr, Options{AllowNetwork: true})
	if err != nil {
		t.Fatal(err)
	}
	o, ok := b.Set.Get(manifest.Key{Group: "apps", Kind: "Deployment", Namespace: "apps", Name: "remote"})
	if !ok {
		t.Fatalf("no Deployment apps/remote from the fetched chart")
	}
	if got := field(o.Body, "spec.replicas"); got != int64(4) {
		t.Errorf("spec.replicas = %v, want 4 (HelmRelease values)", got)
	}
	if got := field(o.Body, "spec.template.spec.containers.image"); got != "nginx:1.0" {
		t.Errorf("image = %v, want the chart default nginx:1.0", got)
	}

	// A version the repository does not have is an error naming the chart.
	bad := strings.Replace(doc, "version: 0.1.x", "version: 9.9.9", 1)
	os.WriteFile(filepath.Join(cluster, "hr.yaml"), []byte(bad), 0o644)
	inv, _ = Scan(root, cluster)
	if _, err := inv.BuildObject(context.Background(), inv.HelmReleases[0], Options{AllowNetwork: true}); err == nil ||
		!strings.Contains(err.Error(), `chart "web" version "9.9.9"`) || !strings.Contains(err.Error(), "HelmRelease apps/remote") {
		t.Fatalf("want an error naming the chart and the HelmRelease, got %v", err)
	}
}
