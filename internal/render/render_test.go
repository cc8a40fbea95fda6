package render

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
)

// TestMain lets the test binary stand in for routeguard as Kustomize's helm
// command, exactly as the real binary does.
func TestMain(m *testing.M) {
	if code, ok := ServeHelmShim(context.Background(), os.Args, os.Getenv, os.Stdout, os.Stderr); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// writeTree creates files under a new temporary repository root.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func cm(name string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n"
}

func ids(set *manifest.Set) []string {
	var out []string
	for _, o := range set.Objects() {
		out = append(out, o.String()+"@"+o.Source.String())
	}
	return out
}

func renderIn(t *testing.T, repo, app string, opts Options) (*Result, error) {
	t.Helper()
	opts.Path = filepath.Join(repo, app)
	opts.RepoRoot = repo
	return Render(context.Background(), opts)
}

func TestDirectory(t *testing.T) {
	repo := writeTree(t, map[string]string{
		"app/b.yaml":           cm("b"),
		"app/a.yml":            cm("a"),
		"app/c.json":           `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`,
		"app/notes.txt":        "not a manifest",
		"app/.routeguard.yaml": "failOn: error\n",
		"app/sub/d.yaml":       cm("d"),
		"app/sub/skip.yaml":    cm("skip"),
	})
	tests := []struct {
		name string
		dir  DirectoryOptions
		want string
	}{
		{"flat", DirectoryOptions{}, "ConfigMap a@app/a.yml:1,ConfigMap b@app/b.yaml:1,ConfigMap c@app/c.json:1"},
		{"recurse", DirectoryOptions{Recurse: true}, "ConfigMap a@app/a.yml:1,ConfigMap b@app/b.yaml:1,ConfigMap c@app/c.json:1,ConfigMap d@app/sub/d.yaml:1,ConfigMap skip@app/sub/skip.yaml:1"},
		{"include", DirectoryOptions{Recurse: true, Include: "{*.yaml,*.json}"}, "ConfigMap b@app/b.yaml:1,ConfigMap c@app/c.json:1,ConfigMap d@app/sub/d.yaml:1,ConfigMap skip@app/sub/skip.yaml:1"},
		{"exclude", DirectoryOptions{Recurse: true, Exclude: "*skip*"}, "ConfigMap a@app/a.yml:1,ConfigMap b@app/b.yaml:1,ConfigMap c@app/c.json:1,ConfigMap d@app/sub/d.yaml:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := renderIn(t, repo, "app", Options{Directory: tt.dir})
			if err != nil {
				t.Fatal(err)
			}
			if res.Tool != ToolDirectory {
				t.Errorf("tool = %s", res.Tool)
			}
			if got := strings.Join(ids(res.Set), ","); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestKustomizeSourcesAndRepoWideLoads(t *testing.T) {
	repo := writeTree(t, map[string]string{
		"base/kustomization.yaml":          "resources:\n- svc.yaml\n",
		"base/svc.yaml":                    "# comment\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n",
		"overlays/prod/kustomization.yaml": "namespace: prod\nnamePrefix: prod-\nresources:\n- ../../base\n- extra.yaml\n",
		"overlays/prod/extra.yaml":         "\n" + cm("extra"),
	})
	res, err := renderIn(t, repo, "overlays/prod", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(ids(res.Set), ",")
	want := "ConfigMap prod/prod-extra@overlays/prod/extra.yaml:2,Service prod/prod-web@base/svc.yaml:2"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for _, o := range res.Set.Objects() {
		if _, ok := o.Annotations()[originAnnotation]; ok {
			t.Errorf("%s keeps the origin annotation routeguard added", o)
		}
	}
}

func TestKustomizeHelmChartsWithoutHelmBinary(t *testing.T) {
	repo := writeTree(t, map[string]string{
		"app/kustomization.yaml":            "helmCharts:\n- name: demo\n  releaseName: rel\n  namespace: team\n  valuesInline:\n    replicas: 4\n",
		"app/charts/demo/Chart.yaml":        "apiVersion: v2\nname: demo\nversion: 0.1.0\n",
		"app/charts/demo/values.yaml":       "replicas: 1\n",
		"app/charts/demo/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cfg\n  namespace: {{ .Release.Namespace }}\ndata:\n  replicas: {{ .Values.replicas | quote }}\n",
	})
	t.Setenv("PATH", t.TempDir()) // no helm binary anywhere
	res, err := renderIn(t, repo, "app", Options{})
	if err != nil {
		t.Fatal(err)
	}
	objs := res.Set.Objects()
	if len(objs) != 1 || objs[0].String() != "ConfigMap team/rel-cfg" {
		t.Fatalf("got %v", ids(res.Set))
	}
	if v := objs[0].Body["data"].(map[string]any)["replicas"]; v != "4" {
		t.Errorf("valuesInline not applied: replicas = %v", v)
	}
}

func TestHelmChart(t *testing.T) {
	repo := writeTree(t, map[string]string{
		"chart/Chart.yaml":            "apiVersion: v2\nname: web\nversion: 1.0.0\n",
		"chart/values.yaml":           "replicas: 1\nhost: a.example.com\n",
		"chart/values-prod.yaml":      "replicas: 5\n",
		"chart/templates/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n  namespace: {{ .Release.Namespace }}\nspec:\n  replicas: {{ .Values.replicas }}\n{{- if .Capabilities.APIVersions.Has \"monitoring.coreos.com/v1\" }}\n---\napiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: {{ .Release.Name }}\n{{- end }}\n",
		"chart/templates/kv.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kube\ndata:\n  minor: {{ .Capabilities.KubeVersion.Minor | quote }}\n  host: {{ .Values.host | quote }}\n",
	})
	res, err := renderIn(t, repo, "chart", Options{Helm: HelmOptions{
		Release: "shop", Namespace: "prod", ValuesFiles: []string{"values-prod.yaml"},
		Set: []string{"host=b.example.com"}, KubeVersion: "1.29.3", APIVersions: []string{"monitoring.coreos.com/v1"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(ids(res.Set), ",")
	want := "ConfigMap kube@chart/templates/kv.yaml,Deployment prod/shop@chart/templates/deploy.yaml,ServiceMonitor shop@chart/templates/deploy.yaml"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	d, _ := res.Set.Lookup("apps", "Deployment", "prod", "shop")
	if r := d.Body["spec"].(map[string]any)["replicas"]; r != int64(5) {
		t.Errorf("values file not applied: replicas = %v", r)
	}
	k, _ := res.Set.Lookup("", "ConfigMap", "", "kube")
	data := k.Body["data"].(map[string]any)
	if data["minor"] != "29" || data["host"] != "b.example.com" {
		t.Errorf("capabilities / --set not applied: %v", data)
	}
}

func TestBadInput(t *testing.T) {
	outside := writeTree(t, map[string]string{"secret.yaml": cm("stolen"), "base/kustomization.yaml": "resources:\n- ../secret.yaml\n"})
	tests := []struct {
		name  string
		files map[string]string
		setup func(t *testing.T, repo string)
		app   string
		opts  Options
		want  string
	}{
		{name: "missing path", files: map[string]string{"x.yaml": cm("x")}, app: "nope", want: "no such directory"},
		{name: "malformed yaml", files: map[string]string{"app/bad.yaml": "kind: [\n"}, app: "app", want: "app/bad.yaml:2: malformed YAML"},
		{name: "kustomization outside repo", app: "app",
			setup: func(t *testing.T, repo string) {
				os.MkdirAll(filepath.Join(repo, "app"), 0o755)
				rel, _ := filepath.Rel(filepath.Join(repo, "app"), filepath.Join(outside, "base"))
				os.WriteFile(filepath.Join(repo, "app", "kustomization.yaml"), []byte("resources:\n- "+rel+"\n"), 0o644)
			}, want: "outside the repository root"},
		{name: "symlink outside repo", app: "app",
			setup: func(t *testing.T, repo string) {
				os.MkdirAll(filepath.Join(repo, "app"), 0o755)
				if err := os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(repo, "app", "link.yaml")); err != nil {
					t.Fatal(err)
				}
			}, want: "outside the repository root"},
		{name: "symlink outside repo in chart", app: "chart",
			files: map[string]string{"chart/Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n"},
			setup: func(t *testing.T, repo string) {
				if err := os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(repo, "chart", "stolen.txt")); err != nil {
					t.Fatal(err)
				}
			}, want: "outside the repository root"},
		{name: "chart template error", app: "chart",
			files: map[string]string{"chart/Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n", "chart/templates/x.yaml": "{{ .Values.missing.deeper }}\n"},
			want:  "chart: helm template failed"},
		{name: "remote base without network", app: "app",
			files: map[string]string{"app/kustomization.yaml": "resources:\n- https://github.com/example/repo//base?ref=v1\n"},
			want:  "app/kustomization.yaml:2: resources \"https://github.com/example/repo//base?ref=v1\" is remote"},
		{name: "remote chart without network", app: "app",
			files: map[string]string{"app/kustomization.yaml": "helmCharts:\n- name: nginx\n  repo: https://charts.example.com\n  version: 1.0.0\n"},
			want:  "routeguard does not download the charts of Kustomize helmCharts"},
		// The shim refuses to pull with the network allowed too (it would
		// write into the repository), and says so rather than suggesting
		// --allow-network.
		{name: "remote chart with network", app: "app", opts: Options{AllowNetwork: true},
			files: map[string]string{"app/kustomization.yaml": "helmCharts:\n- name: nginx\n  repo: https://charts.example.com\n  version: 1.0.0\n"},
			want:  "vendor the chart under the kustomization's chart home"},
		{name: "file over size limit", app: "app", opts: Options{MaxFileBytes: 64},
			files: map[string]string{"app/big.yaml": cm(strings.Repeat("x", 100))},
			want:  "over the 64 bytes limit"},
		{name: "values file outside repo", app: "chart", opts: Options{Helm: HelmOptions{ValuesFiles: []string{filepath.Join(outside, "secret.yaml")}}},
			files: map[string]string{"chart/Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n"},
			want:  "outside the repository root"},
		{name: "duplicate objects", app: "app",
			files: map[string]string{"app/a.yaml": cm("same"), "app/b.yaml": cm("same")},
			want:  "app/b.yaml:1: duplicate object ConfigMap same, first defined at app/a.yaml:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := writeTree(t, tt.files)
			if tt.setup != nil {
				tt.setup(t, repo)
			}
			res, err := renderIn(t, repo, tt.app, tt.opts)
			if err == nil {
				t.Fatalf("no error; rendered %v", ids(res.Set))
			}
			if res != nil {
				t.Errorf("partial result returned with the error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q\ndoes not contain %q", err, tt.want)
			}
		})
	}
}

func TestOutsideErrorIsTyped(t *testing.T) {
	repo := writeTree(t, map[string]string{"a.yaml": cm("a")})
	r, _ := newRoot(repo)
	_, err := r.resolve(filepath.Join(repo, "..", "x"))
	if !errors.Is(err, errOutside) {
		t.Errorf("want errOutside, got %v", err)
	}
}

// TestDirectoryParallelKeepsFileOrder: files are decoded concurrently, but
// the objects keep the files' order and the error is always the first
// failing file's, as a serial read gives.
func TestDirectoryParallelKeepsFileOrder(t *testing.T) {
	files := map[string]string{}
	var want []string
	for i := range 200 {
		name := fmt.Sprintf("app/f%03d.yaml", i)
		files[name] = cm(fmt.Sprintf("cm-%03d", i)) + "---\n" + cm(fmt.Sprintf("cm-%03d-b", i))
		want = append(want, fmt.Sprintf("ConfigMap cm-%03d@%s:1", i, name), fmt.Sprintf("ConfigMap cm-%03d-b@%s:6", i, name))
	}
	repo := writeTree(t, files)
	res, err := renderIn(t, repo, "app", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(res.Set); !slices.Equal(got, want) {
		t.Fatalf("objects out of file order:\n got %v\nwant %v", got[:6], want[:6])
	}

	files["app/f050.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: [\n"
	files["app/f120.yaml"] = "kind: [\n"
	files["app/f150.yaml"] = cm("cm-001") // a duplicate, after both bad files
	repo = writeTree(t, files)
	for range 5 {
		_, err := renderIn(t, repo, "app", Options{})
		if err == nil || !strings.Contains(err.Error(), "app/f050.yaml:4: malformed YAML") {
			t.Fatalf("err = %v, want the first bad file's (app/f050.yaml:4)", err)
		}
	}
}

// A directory app (outside Argo CD's rules) passes over the repository's
// own YAML, none of whose documents has apiVersion or kind, with one
// warning naming each file; a file with a kind but no apiVersion is
// still the error, naming file and line.
func TestDirectorySkipsNonManifestYAML(t *testing.T) {
	repo := writeTree(t, map[string]string{
		".pre-commit-config.yaml": "repos:\n  - repo: https://example.com/hooks\n    hooks: [{id: lint}]\n",
		"renovate.json":           `{"extends": ["config:recommended"]}`,
		"service.yaml":            cm("a"),
	})
	res, err := renderIn(t, repo, ".", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids(res.Set), ","); got != "ConfigMap a@service.yaml:1" {
		t.Errorf("objects %s", got)
	}
	want := []string{".pre-commit-config.yaml: not a Kubernetes manifest", "renovate.json: not a Kubernetes manifest"}
	if len(res.Warnings) != len(want) {
		t.Fatalf("warnings %q, want one per file", res.Warnings)
	}
	for i, w := range want {
		if !strings.HasPrefix(res.Warnings[i], w) {
			t.Errorf("warning %d = %q, want %q...", i, res.Warnings[i], w)
		}
	}

	// --recurse meets Kustomize's build file (no metadata.name): passed
	// over with a warning naming its directory; the manifests beside it
	// are read.
	kust := writeTree(t, map[string]string{
		"apps/web/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [cm.yaml]\n",
		"apps/web/cm.yaml":            cm("web"),
	})
	res, err = renderIn(t, kust, ".", Options{Directory: DirectoryOptions{Recurse: true}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids(res.Set), ","); got != "ConfigMap web@apps/web/cm.yaml:1" {
		t.Errorf("objects %s", got)
	}
	if len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0], "apps/web/kustomization.yaml: Kustomize's build file") || !strings.Contains(res.Warnings[0], "analyze apps/web itself") {
		t.Errorf("warnings %q", res.Warnings)
	}

	bad := writeTree(t, map[string]string{"notes.yaml": "a: 1\n", "svc.yaml": "kind: Service\nmetadata: {name: a}\n"})
	_, err = renderIn(t, bad, ".", Options{})
	if err == nil || !strings.Contains(err.Error(), "svc.yaml:1: object has no apiVersion") {
		t.Fatalf("kind without apiVersion: %v, want the error at svc.yaml:1", err)
	}
}
