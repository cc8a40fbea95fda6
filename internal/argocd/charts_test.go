package argocd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/provenance"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/charts"
	"github.com/routeguard/routeguard/internal/charts/chartstest"
	"github.com/routeguard/routeguard/internal/manifest"
)

// chartTemplate is a ConfigMap that says which chart and version rendered
// it, with which release and values.
const chartTemplate = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-{{ .Chart.Name }}
  namespace: {{ .Release.Namespace }}
data:
  chart: {{ .Chart.Name }}-{{ .Chart.Version }}
  color: {{ .Values.color | default "none" | quote }}
`

func remoteChart() map[string]string {
	return map[string]string{"templates/cm.yaml": chartTemplate, "values.yaml": "color: chart-default\n"}
}

// chartRepos serves charts on loopback: an HTTP chart repository with
// web 1.2.0, 1.2.3, 1.3.0 and db 2.0.0, 2.1.0; an OCI registry with
// charts/cache 0.4.0 and 0.5.0.
func chartRepos(t *testing.T) (*chartstest.Repo, *chartstest.Registry) {
	t.Helper()
	repo := chartstest.NewRepo(t,
		chartstest.Chart("web", "1.2.0", remoteChart()),
		chartstest.Chart("web", "1.2.3", remoteChart()),
		chartstest.Chart("web", "1.3.0", remoteChart()),
		chartstest.Chart("db", "2.0.0", remoteChart()),
		chartstest.Chart("db", "2.1.0", remoteChart()))
	reg := chartstest.NewRegistry(t)
	reg.Push(t, chartstest.Chart("cache", "0.4.0", remoteChart()), "charts/cache", "0.4.0")
	reg.Push(t, chartstest.Chart("cache", "0.5.0", remoteChart()), "charts/cache", "0.5.0")
	return repo, reg
}

// chartApp is an Application of a chart from a chart repository.
func chartApp(name, ns, repo, chart, version, extra string) string {
	return `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: ` + name + `
  namespace: argocd
spec:
  project: default
  source:
    repoURL: ` + repo + `
    chart: ` + chart + `
    targetRevision: "` + version + `"
` + extra + `
  destination:
    server: https://kubernetes.default.svc
    namespace: ` + ns + "\n"
}

// chartRepoFixture is a repository with chart sources (HTTP repository
// with a constraint, OCI registry) and an umbrella chart with https and
// oci dependencies, one pinned by Chart.lock.
func chartRepoFixture(t *testing.T, repo *chartstest.Repo, reg *chartstest.Registry) string {
	t.Helper()
	root := writeRepo(t, map[string]string{
		"argocd/web.yaml": chartApp("web", "shop", repo.URL, "web", "~1.2.0", `    helm:
      valuesObject:
        color: blue`),
		"argocd/cache.yaml": chartApp("cache", "cache", "oci://"+reg.Host+"/charts", "cache", "0.4.0", ""),
		"argocd/umbrella.yaml": application("umbrella", "platform", "charts/umbrella", `    helm:
      releaseName: plat`),
		"charts/umbrella/Chart.yaml": `apiVersion: v2
name: umbrella
version: 0.1.0
dependencies:
  - name: db
    version: ">=2.0.0"
    repository: ` + repo.URL + `
  - name: cache
    version: ^0.4.0
    repository: oci://` + reg.Host + `/charts
`,
		"charts/umbrella/values.yaml":       "db:\n  color: green\n",
		"charts/umbrella/templates/ns.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: umbrella\ndata:\n  k: v\n",
	})
	// Chart.lock pins db to 2.0.0 although 2.1.0 satisfies >=2.0.0:
	// `helm dependency build` takes the locked version.
	writeLock(t, filepath.Join(root, "charts/umbrella"), []*chartv2.Dependency{
		{Name: "db", Repository: repo.URL, Version: "2.0.0"},
		{Name: "cache", Repository: "oci://" + reg.Host + "/charts", Version: "0.4.0"},
	}, "")
	return root
}

// writeLock writes dir/Chart.lock with the digest Helm's `helm dependency
// update` gives it (resolver.HashReq: sha256 of the JSON of Chart.yaml's
// dependencies, as Helm's loader reads them, and the lock's), or digest.
func writeLock(t *testing.T, dir string, deps []*chartv2.Dependency, digest string) {
	t.Helper()
	ch, err := loader.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if digest == "" {
		data, err := json.Marshal([2][]*chartv2.Dependency{ch.Metadata.Dependencies, deps})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := provenance.Digest(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		digest = "sha256:" + sum
	}
	out, err := yaml.Marshal(&chartv2.Lock{Dependencies: deps, Digest: digest, Generated: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Chart.lock"), out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// renderedYAML is every Application's objects as YAML with their file, in
// order: what must be equal between a cold and a warm cache.
func renderedYAML(t *testing.T, res *Result) string {
	t.Helper()
	var b strings.Builder
	for _, a := range res.Apps {
		if a.Err != nil {
			t.Fatalf("Application %s: %v", a.App.Key(), a.Err)
		}
		b.WriteString("# " + a.App.Key() + "\n")
		for _, o := range a.Set.Objects() {
			b.WriteString("# " + o.Source.File + "\n")
			if err := manifest.WriteYAML(&b, []*manifest.Object{o}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return b.String()
}

// Chart sources and chart dependencies fetched through the chart cache:
// with the network, versions resolved as Helm resolves them and Chart.lock
// honoured; then offline from the warm cache, the same objects without a
// request; offline from a cold cache, each Application skipped with a
// reason naming its chart, its namespace cannot be checked.
func TestChartRepositories(t *testing.T) {
	repo, reg := chartRepos(t)
	root := chartRepoFixture(t, repo, reg)
	dir := t.TempDir()

	online := build(t, root, Options{AllowNetwork: true, Charts: CacheSource(&charts.Cache{Dir: dir})}, "argocd")
	web := find(t, rendered(t, online, "argocd/web"), "ConfigMap", "web-web")
	if got := field(web, "data", "chart"); got != "web-1.2.3" {
		t.Errorf("web: chart %q, want web-1.2.3 (the newest ~1.2.0)", got)
	}
	if got := field(web, "data", "color"); got != "blue" || web.Namespace != "shop" {
		t.Errorf("web: color %q namespace %q, want the Application's values and destination", got, web.Namespace)
	}
	if f := web.Source.File; !strings.HasPrefix(f, "web@~1.2.0/") {
		t.Errorf("web: object file %q, want it under the chart", f)
	}
	cache := find(t, rendered(t, online, "argocd/cache"), "ConfigMap", "cache-cache")
	if got := field(cache, "data", "chart"); got != "cache-0.4.0" {
		t.Errorf("cache: chart %q, want cache-0.4.0 from the OCI registry", got)
	}
	umbrella := rendered(t, online, "argocd/umbrella")
	equal(t, "umbrella objects", objectKeys(umbrella), []string{
		"ConfigMap platform/plat-cache", "ConfigMap platform/plat-db", "ConfigMap umbrella"})
	db := find(t, umbrella, "ConfigMap", "plat-db")
	if got := field(db, "data", "chart"); got != "db-2.0.0" {
		t.Errorf("umbrella: dependency %q, want db-2.0.0 as Chart.lock pins it", got)
	}
	if got := field(db, "data", "color"); got != "green" {
		t.Errorf("umbrella: dependency color %q, want the parent's values for it", got)
	}
	want := renderedYAML(t, online)

	hits, regHits := repo.Hits(), reg.Hits()
	offline := build(t, root, Options{Charts: CacheSource(&charts.Cache{Dir: dir, Offline: true})}, "argocd")
	if got := renderedYAML(t, offline); got != want {
		t.Errorf("offline from the warm cache differs:\n%s\nwant\n%s", got, want)
	}
	if repo.Hits() != hits || reg.Hits() != regHits {
		t.Errorf("offline run made %d repository and %d registry requests", repo.Hits()-hits, reg.Hits()-regHits)
	}

	for name, src := range map[string]ChartSource{
		"cold cache": CacheSource(&charts.Cache{Dir: t.TempDir(), Offline: true}),
		"no cache":   nil,
	} {
		cold := build(t, root, Options{Charts: src}, "argocd")
		for key, ns := range map[string]string{"argocd/web": "shop", "argocd/cache": "cache", "argocd/umbrella": "platform"} {
			a := app(t, cold, key)
			if a.Err != nil {
				t.Errorf("%s: %s: error %v, want a skipped source", name, key, a.Err)
				continue
			}
			chart := strings.TrimPrefix(key, "argocd/")
			if key == "argocd/umbrella" {
				// Partly rendered: its own template, not the dependencies.
				if len(a.Sources) != 1 || a.Sources[0].MissingDependencies == nil || !strings.Contains(a.Sources[0].MissingDependencies.Error(), "db 2.0.0") ||
					a.Status() != "partial" || a.Set.Len() != 1 || len(a.Unrendered) != 1 || a.Unrendered[0].Namespace != ns {
					t.Errorf("%s: %s: sources %+v, %d objects, unrendered %+v; want its own ConfigMap rendered, db and cache left out, namespace %s unchecked", name, key, a.Sources, a.Set.Len(), a.Unrendered, ns)
				}
				continue
			}
			if len(a.Sources) != 1 || !strings.Contains(a.Sources[0].Skipped, chart) {
				t.Errorf("%s: %s: sources %+v, want the source skipped naming chart %s", name, key, a.Sources, chart)
			}
			if a.Set.Len() != 0 || len(a.Unrendered) != 1 || a.Unrendered[0].Namespace != ns {
				t.Errorf("%s: %s: %d objects, unrendered %+v; want nothing rendered and namespace %s unchecked", name, key, a.Set.Len(), a.Unrendered, ns)
			}
		}
	}
}

// A Chart.lock out of sync with Chart.yaml (a dependency changed without
// `helm dependency update`) fails as `helm dependency build` fails it in
// Argo CD: the Application does not render, naming the lock and the fix.
func TestChartLockOutOfSync(t *testing.T) {
	repo, reg := chartRepos(t)
	root := chartRepoFixture(t, repo, reg)
	dir := filepath.Join(root, "charts/umbrella")
	// The lock of an older Chart.yaml (db only), its digest Helm's for that one.
	writeLock(t, dir, []*chartv2.Dependency{{Name: "db", Repository: repo.URL, Version: "2.0.0"}},
		"sha256:8f4bb0d5a1e6cf2f1f2a0d0c6c7b0f1e4d6a5b3c2e1f0a9b8c7d6e5f4a3b2c1d")
	res := build(t, root, Options{AllowNetwork: true, Charts: CacheSource(&charts.Cache{Dir: t.TempDir()})}, "argocd")
	a := app(t, res, "argocd/umbrella")
	if a.Err == nil || !strings.Contains(a.Err.Error(), "charts/umbrella/Chart.lock: the lock file is out of sync") || !strings.Contains(a.Err.Error(), "helm dependency update") {
		t.Fatalf("umbrella: err %v, sources %+v; want the out-of-sync lock named", a.Err, a.Sources)
	}
	rendered(t, res, "argocd/web") // the others still render
}
