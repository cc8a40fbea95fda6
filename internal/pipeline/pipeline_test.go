package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/render"
)

// TestMain lets the test binary answer Kustomize's helm calls, as the
// routeguard binary does.
func TestMain(m *testing.M) {
	if code, ok := render.ServeHelmShim(context.Background(), os.Args, os.Getenv, os.Stdout, os.Stderr); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

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

func objects(t *testing.T, yaml string) *manifest.Set {
	t.Helper()
	objs, err := manifest.Decode("in.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	set := manifest.NewSet()
	if err := set.AddAll(objs); err != nil {
		t.Fatal(err)
	}
	return set
}

func codes(fs []analysis.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code+" "+f.Object.String())
	}
	return out
}

const route = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: shop}
spec:
  rules:
    - backendRefs:
        - {name: web, port: 80}
`

// otherService is a Service of the route's namespace that is not its
// backend: the app renders Services there, so a missing one is dangling
// (RG1101), not "cannot check" (RG0001).
const otherService = `---
apiVersion: v1
kind: Service
metadata: {name: db, namespace: shop}
spec:
  ports: [{port: 5432}]
`

const service = `apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  ports: [{port: 80}]
`

func TestMergeTransforms(t *testing.T) {
	cfg := &config.Transforms{Weights: map[string]map[string]int{"a": {"x": 100}, "b": {"y": 100}}}
	for _, tc := range []struct {
		name string
		cfg  *config.Transforms
		o    Overrides
		want *config.Transforms
	}{
		{"nothing", nil, Overrides{}, nil},
		{"config only", cfg, Overrides{}, cfg},
		{"override replaces per service", cfg, Overrides{Weights: map[string]map[string]int{"b": {"z": 100}}},
			&config.Transforms{Weights: map[string]map[string]int{"a": {"x": 100}, "b": {"z": 100}}}},
		{"sync waves from either", &config.Transforms{}, Overrides{SyncWaves: true}, &config.Transforms{SyncWaves: true}},
		{"override without config", nil, Overrides{Weights: map[string]map[string]int{"b": {"z": 100}}},
			&config.Transforms{Weights: map[string]map[string]int{"b": {"z": 100}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := MergeTransforms(tc.cfg, tc.o)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	if cfg.Weights["b"]["y"] != 100 {
		t.Fatal("MergeTransforms changed the configuration")
	}
}

func TestRunObjectsFailOn(t *testing.T) {
	repo := writeTree(t, map[string]string{".routeguard.yaml": "failOn: never\n"})
	for _, tc := range []struct {
		name       string
		override   analysis.FailOn
		wantFailOn analysis.FailOn
		wantFailed bool
	}{
		{"config says never", analysis.FailOnUnset, analysis.FailOnNever, false},
		{"flag wins", analysis.FailOnError, analysis.FailOnError, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Run(context.Background(), Request{Objects: objects(t, route+otherService), AppDir: repo, RepoRoot: repo,
				Overrides: Overrides{FailOn: tc.override}, Analyze: true})
			if err != nil {
				t.Fatal(err)
			}
			if out.FailOn != tc.wantFailOn || out.Failed != tc.wantFailed {
				t.Fatalf("failOn %v failed %v, want %v %v", out.FailOn, out.Failed, tc.wantFailOn, tc.wantFailed)
			}
			if !slices.Contains(codes(out.Findings), "RG1101 HTTPRoute shop/web") {
				t.Fatalf("findings %v lack the dangling backend", codes(out.Findings))
			}
		})
	}
}

// A context path rendered by Kustomize helmCharts resolves references, for
// objects at hand as for rendered apps (flux build used to render context
// paths without the helm shim).
func TestRunContextPathWithHelmCharts(t *testing.T) {
	repo := writeTree(t, map[string]string{
		".routeguard.yaml":               "contextPaths: [backend]\n",
		"backend/kustomization.yaml":     "helmCharts:\n  - name: web\n    releaseName: web\n    namespace: shop\n",
		"backend/charts/web/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"backend/charts/web/values.yaml": "{}\n",
		"backend/charts/web/templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: {{ .Release.Namespace }}\n" +
			"spec:\n  ports:\n    - port: 80\n",
	})
	for _, objs := range []bool{true, false} {
		req := Request{Analyze: true}
		if objs {
			req.Objects, req.AppDir, req.RepoRoot = objects(t, route), repo, repo
		} else {
			if err := os.WriteFile(filepath.Join(repo, "route.yaml"), []byte(route), 0o644); err != nil {
				t.Fatal(err)
			}
			req.Render = &render.Options{Path: repo, RepoRoot: repo}
		}
		out, err := Run(context.Background(), req)
		if err != nil {
			t.Fatalf("objects=%v: %v", objs, err)
		}
		for _, f := range out.Findings {
			if f.Code == analysis.CodeBackendNotFound || f.Code == analysis.CodeUnresolvedOutside {
				t.Fatalf("objects=%v: the Service of the context path was not seen: %v", objs, codes(out.Findings))
			}
		}
	}
}

func TestRunSubstitutionAndTransforms(t *testing.T) {
	repo := writeTree(t, map[string]string{".routeguard.yaml": "transforms:\n  syncWaves: true\n"})
	in := objects(t, service+"---\n"+`apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: shop}
data: {host: "api.${domain}"}
`)
	out, err := Run(context.Background(), Request{Objects: in, AppDir: repo, RepoRoot: repo,
		Substitution: &Substitution{Variables: map[string]string{"domain": "example.com"}, Strict: true, Namespace: "shop"}})
	if err != nil {
		t.Fatal(err)
	}
	cm, ok := out.Set.Get(manifest.Key{Kind: "ConfigMap", Namespace: "shop", Name: "c"})
	if !ok || cm.Body["data"].(map[string]any)["host"] != "api.example.com" {
		t.Fatalf("not substituted: %v", cm)
	}
	if out.Findings != nil {
		t.Fatal("analysis ran without Analyze")
	}
	_, err = Run(context.Background(), Request{Objects: in, AppDir: repo, RepoRoot: repo,
		Substitution: &Substitution{Variables: map[string]string{"other": "x"}, Strict: true, Namespace: "shop"}})
	if err == nil {
		t.Fatal("strict substitution of an unset variable must fail")
	}
}

func TestLoadConfigFindsAndConfines(t *testing.T) {
	repo := writeTree(t, map[string]string{"apps/a/x.yaml": "", "outside.yaml": ""})
	app := filepath.Join(repo, "apps", "a")
	cfg, err := LoadConfig("", app, repo)
	if err != nil || cfg.File != "" {
		t.Fatalf("no config: %+v %v", cfg, err)
	}
	os.WriteFile(filepath.Join(repo, ".routeguard.yaml"), []byte("failOn: never\n"), 0o644)
	if cfg, err := LoadConfig("", app, repo); err != nil || cfg.File != ".routeguard.yaml" || cfg.FailOn != analysis.FailOnNever {
		t.Fatalf("repository config: %+v %v", cfg, err)
	}
	os.WriteFile(filepath.Join(app, ".routeguard.yml"), []byte("failOn: warning\n"), 0o644)
	if cfg, err := LoadConfig("", app, repo); err != nil || cfg.File != "apps/a/.routeguard.yml" || cfg.FailOn != analysis.FailOnWarning {
		t.Fatalf("the app's config must win: %+v %v", cfg, err)
	}
	// A config that leads out of the repository is refused, its content
	// never read (key names would show in errors).
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("AWS_SECRET_ACCESS_KEY: x\n"), 0o644)
	os.Remove(filepath.Join(app, ".routeguard.yml"))
	if err := os.Symlink(secret, filepath.Join(app, ".routeguard.yaml")); err != nil {
		t.Fatal(err)
	}
	_, err = LoadConfig("", app, repo)
	if err == nil || !strings.Contains(err.Error(), "outside") || strings.Contains(err.Error(), "AWS_SECRET") {
		t.Fatalf("symlinked config: %v", err)
	}
}

// TestRunRendersNothing: a directory that renders no objects (files that
// are not Kubernetes objects, or none) is RG0007, not "no findings".
func TestRunRendersNothing(t *testing.T) {
	repo := writeTree(t, map[string]string{"notes/todo.yaml": "todo: [upgrade]\n", "README.md": "# app\n"})
	out, err := Run(context.Background(), Request{Analyze: true, Render: &render.Options{Path: repo, RepoRoot: repo}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Findings) != 1 || out.Findings[0].Code != analysis.CodeRendersNothing {
		t.Fatalf("findings %v, want one RG0007", codes(out.Findings))
	}
	if f := out.Findings[0]; f.Severity != analysis.SeverityWarning || !strings.Contains(f.Message, "renders no objects") {
		t.Errorf("finding %+v", f)
	}
	// Objects given (stdin, postrender) are the caller's: none is not
	// an app that renders nothing.
	out, err = Run(context.Background(), Request{Analyze: true, Objects: manifest.NewSet(), AppDir: repo, RepoRoot: repo})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Findings) != 0 {
		t.Errorf("objects given: %v", codes(out.Findings))
	}
}

// TestRunFluxObjectsUnbuilt: a Flux HelmRelease among an app's objects
// installs its chart in the cluster, so a Service its release namespace
// lacks here cannot be checked (RG0001, with a note) — unless the objects
// come from `routeguard flux build`, which built the release.
func TestRunFluxObjectsUnbuilt(t *testing.T) {
	const release = `---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: web, namespace: flux-system}
spec:
  targetNamespace: shop
  chart: {spec: {chart: web, sourceRef: {kind: HelmRepository, name: charts}}}
`
	repo := writeTree(t, nil)
	for _, built := range []bool{false, true} {
		out, err := Run(context.Background(), Request{Analyze: true, Objects: objects(t, route+otherService+release),
			AppDir: repo, RepoRoot: repo, FluxBuilt: built})
		if err != nil {
			t.Fatal(err)
		}
		want := analysis.CodeUnresolvedOutside
		if built {
			want = analysis.CodeBackendNotFound
		}
		if !slices.ContainsFunc(out.Findings, func(f analysis.Finding) bool { return f.Code == want && f.Object.Name == "web" }) {
			t.Errorf("built=%v: want %s for the route's backend: %v", built, want, codes(out.Findings))
		}
		noted := slices.ContainsFunc(out.Notices, func(n Notice) bool { return strings.Contains(n.Text, "HelmRelease flux-system/web") })
		if noted == built {
			t.Errorf("built=%v: note naming the HelmRelease: %v", built, out.Notices)
		}
	}
}
