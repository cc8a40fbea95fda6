package flux

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/charts"
	"github.com/routeguard/routeguard/internal/charts/chartstest"
	"github.com/routeguard/routeguard/internal/manifest"
)

// TestBuildTreeRemoteCharts: HelmReleases on a HelmRepository chart (HTTP
// on loopback) and an OCIRepository chart (in-process registry) are
// rendered with the network and a cold cache, then offline from the cache
// with the same output and no request; an empty cache offline skips them
// with a reason.
func TestBuildTreeRemoteCharts(t *testing.T) {
	svc := map[string]string{"templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: {{ .Release.Name }}}\nspec: {ports: [{port: {{ .Values.port }}}]}\n", "values.yaml": "port: 80\n"}
	repo := chartstest.NewRepo(t, chartstest.Chart("http-app", "1.2.0", svc), chartstest.Chart("http-app", "1.3.0", svc))
	reg := chartstest.NewRegistry(t)
	reg.Push(t, chartstest.Chart("oci-app", "0.4.0", svc), "charts/oci-app", "0.4.0")
	files := map[string]string{
		"clusters/c/flux-system/gotk-sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 1m, url: "https://example.com/me/c.git"}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 10m, path: ./clusters/c, sourceRef: {kind: GitRepository, name: flux-system}}
`,
		"clusters/c/flux-system/kustomization.yaml": "resources: [gotk-sync.yaml]\n",
		"clusters/c/releases.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata: {name: charts, namespace: apps}
spec: {interval: 1h, url: "` + repo.URL + `"}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: via-index, namespace: apps}
spec:
  interval: 10m
  chart: {spec: {chart: http-app, version: "~1.2", sourceRef: {kind: HelmRepository, name: charts}}}
  values: {port: 8080}
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata: {name: oci-app, namespace: apps}
spec: {interval: 1h, url: "oci://` + reg.Host + `/charts/oci-app", insecure: true, ref: {tag: 0.4.0}}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: via-oci, namespace: apps}
spec:
  interval: 10m
  chartRef: {kind: OCIRepository, name: oci-app}
`,
	}
	root := writeRepo(t, files)
	cacheDir := t.TempDir()
	build := func(c *charts.Cache, network bool) *Result {
		t.Helper()
		res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/c"), AllowNetwork: network, Charts: c})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	cold := build(&charts.Cache{Dir: cacheDir}, true)
	if cold.Stats.HelmReleases != 2 || cold.Stats.Skipped != 0 || cold.Stats.Failed != 0 {
		t.Fatalf("cold: %s; %+v", cold.Stats.Summary(), cold.Nodes)
	}
	if o, ok := cold.Objects.Lookup("", "Service", "apps", "via-index"); !ok || !strings.Contains(dump(o), "8080") {
		t.Errorf("via-index Service: %v", o)
	}
	if _, ok := cold.Objects.Lookup("", "Service", "apps", "via-oci"); !ok {
		t.Errorf("via-oci Service missing")
	}
	repoHits, regHits := repo.Hits(), reg.Hits()
	warm := build(&charts.Cache{Dir: cacheDir, Offline: true}, false)
	if repo.Hits() != repoHits || reg.Hits() != regHits {
		t.Errorf("offline run reached the network")
	}
	if a, b := keys(cold.Objects), keys(warm.Objects); !slices.Equal(a, b) {
		t.Errorf("offline output differs:\n%v\nvs\n%v", b, a)
	}
	empty := build(&charts.Cache{Dir: t.TempDir(), Offline: true}, false)
	if empty.Stats.Skipped != 2 || empty.Stats.SkippedBy["chart not in the cache"] != 2 {
		t.Errorf("empty cache: %s", empty.Stats.Summary())
	}
	none := build(nil, false)
	if none.Stats.SkippedBy["chart needs the network"] != 2 {
		t.Errorf("no cache: %s", none.Stats.Summary())
	}
}

func keys(s *manifest.Set) []string {
	var out []string
	for _, o := range s.Objects() {
		out = append(out, o.String()+" "+dump(o))
	}
	return out
}

func dump(o *manifest.Object) string {
	var b strings.Builder
	_ = manifest.WriteYAML(&b, []*manifest.Object{o})
	return b.String()
}
