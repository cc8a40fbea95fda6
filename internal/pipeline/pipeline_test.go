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
	"github.com/routeguard/routeguard/internal/analysis/analysistest"
	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/pipeline/pipelinetest"
)

// The helpers and fixtures the pipeline's and the actions' tests share.
var (
	writeTree = pipelinetest.WriteTree
	objects   = pipelinetest.Objects
	codes     = analysistest.Keys
)

const (
	route        = pipelinetest.Route
	otherService = pipelinetest.OtherService
	service      = pipelinetest.Service
)

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
			out, err := Run(context.Background(), Input{Objects: objects(t, route+otherService), AppDir: repo, RepoRoot: repo},
				Changes{}, Analysis{FailOn: tc.override})
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

func TestRunSubstitutionAndTransforms(t *testing.T) {
	repo := writeTree(t, map[string]string{".routeguard.yaml": "transforms:\n  syncWaves: true\n"})
	in := objects(t, service+"---\n"+`apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: shop}
data: {host: "api.${domain}"}
`)
	out, err := Prepare(context.Background(), Input{Objects: in, AppDir: repo, RepoRoot: repo},
		Changes{Substitution: &Substitution{Variables: map[string]string{"domain": "example.com"}, Strict: true, Namespace: "shop"}})
	if err != nil {
		t.Fatal(err)
	}
	cm, ok := out.Set.Get(manifest.Key{Kind: "ConfigMap", Namespace: "shop", Name: "c"})
	if !ok || cm.Body["data"].(map[string]any)["host"] != "api.example.com" {
		t.Fatalf("not substituted: %v", cm)
	}
	if out.Findings != nil {
		t.Fatal("Prepare ran the analysis")
	}
	_, err = Prepare(context.Background(), Input{Objects: in, AppDir: repo, RepoRoot: repo},
		Changes{Substitution: &Substitution{Variables: map[string]string{"other": "x"}, Strict: true, Namespace: "shop"}})
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

// The context paths are rendered by the caller's renderer (the pipeline
// imports no source), merged with the context objects; their objects
// resolve references and are never reported on. Without a renderer,
// context paths are an error, never silently left out.
func TestAnalyzeContext(t *testing.T) {
	repo := writeTree(t, map[string]string{".routeguard.yaml": "contextPaths: [backend]\n"})
	var asked []string
	renderer := func(_ context.Context, cfg *config.Config, root string) (*manifest.Set, error) {
		for _, cp := range cfg.ContextPaths {
			asked = append(asked, cp.Path)
		}
		if root != repo {
			t.Errorf("context rendered for %s, want %s", root, repo)
		}
		return objects(t, service), nil
	}
	in := Input{Objects: objects(t, route+otherService), AppDir: repo, RepoRoot: repo}
	out, err := Run(context.Background(), in, Changes{}, Analysis{ContextPaths: renderer})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(asked, []string{"backend"}) || slices.ContainsFunc(out.Findings, func(f analysis.Finding) bool {
		return f.Code == analysis.CodeBackendNotFound || f.Object.Kind == "Service"
	}) {
		t.Errorf("context paths %v; findings %v: want the route resolved and nothing on the context", asked, codes(out.Findings))
	}
	in.Objects = objects(t, route+otherService)
	out, err = Run(context.Background(), in, Changes{}, Analysis{ContextPaths: func(context.Context, *config.Config, string) (*manifest.Set, error) {
		return manifest.NewSet(), nil
	}, ContextObjects: objects(t, service)})
	if err != nil || slices.Contains(codes(out.Findings), "RG1101 HTTPRoute shop/web") {
		t.Errorf("context objects: %v, %v", codes(out.Findings), err)
	}
	in.Objects = objects(t, route)
	if _, err := Run(context.Background(), in, Changes{}, Analysis{}); err == nil || !strings.Contains(err.Error(), "contextPaths") {
		t.Errorf("no renderer: %v, want an error naming contextPaths", err)
	}
}
