package argocd

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/argocdcmp"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
)

// repoURL is what the fixtures' Applications call this repository.
const repoURL = "https://git.example.com/platform/gitops.git"

// writeRepo writes files (path -> content) into a new checkout and returns
// its root.
func writeRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(strings.TrimLeft(content, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// build runs Build with this repository's URL given and the roots relative
// to root.
func build(t *testing.T, root string, opts Options, roots ...string) *Result {
	t.Helper()
	opts.RepoRoot = root
	if opts.RepoURLs == nil {
		opts.RepoURLs = []string{repoURL}
	}
	for _, r := range roots {
		opts.Roots = append(opts.Roots, filepath.Join(root, filepath.FromSlash(r)))
	}
	if opts.RenderPlugin == nil {
		opts.RenderPlugin = renderPlugin
	}
	res, err := Build(context.Background(), opts)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return res
}

// renderPlugin renders a source of routeguard's plugin as internal/action
// does: render, then the pipeline's substitution and transforms.
func renderPlugin(ctx context.Context, req argocdcmp.Request) (*manifest.Set, error) {
	res, err := render.Render(ctx, req.Render)
	if err != nil {
		return nil, err
	}
	ch := pipeline.Changes{Overrides: pipeline.Overrides{Weights: req.Weights}}
	if len(req.Variables) > 0 {
		ch.Substitution = &pipeline.Substitution{Variables: req.Variables, Strict: true, Namespace: req.Namespace, Origin: argocdcmp.VariablesOrigin}
	}
	out, err := pipeline.Prepare(ctx, pipeline.Input{Objects: res.Set, AppDir: filepath.Join(res.RepoRoot, filepath.FromSlash(res.Path)), RepoRoot: res.RepoRoot}, ch)
	if err != nil {
		return nil, err
	}
	return out.Set, nil
}

func appKeys(res *Result) []string {
	var out []string
	for _, a := range res.Apps {
		out = append(out, a.App.Key())
	}
	return out
}

// app returns the result of the Application with key, failing the test
// when it is missing or did not render (unless failed is allowed).
func app(t *testing.T, res *Result, key string) *AppResult {
	t.Helper()
	for _, a := range res.Apps {
		if a.App.Key() == key {
			return a
		}
	}
	t.Fatalf("no Application %s among %v", key, appKeys(res))
	return nil
}

func rendered(t *testing.T, res *Result, key string) *manifest.Set {
	t.Helper()
	a := app(t, res, key)
	if a.Err != nil {
		t.Fatalf("Application %s did not render: %v", key, a.Err)
	}
	return a.Set
}

// objectKeys lists "Kind ns/name" of a set, sorted.
func objectKeys(s *manifest.Set) []string {
	var out []string
	for _, o := range s.Objects() {
		out = append(out, o.String())
	}
	slices.Sort(out)
	return out
}

// find returns the object of kind and name in s.
func find(t *testing.T, s *manifest.Set, kind, name string) *manifest.Object {
	t.Helper()
	for _, o := range s.Objects() {
		if o.Kind == kind && o.Name == name {
			return o
		}
	}
	t.Fatalf("no %s %s among %v", kind, name, objectKeys(s))
	return nil
}

// field reads a nested string field of o ("data", "color").
func field(o *manifest.Object, path ...string) string {
	var v any = o.Body
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[p]
	}
	s, _ := v.(string)
	return s
}

func notices(res *Result) string {
	var b strings.Builder
	for _, n := range res.Notices {
		b.WriteString(n.Text + "\n")
	}
	return b.String()
}

func equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

// application is an Application manifest of this repository.
func application(name, ns, path, extra string) string {
	return `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: ` + name + `
  namespace: argocd
spec:
  project: default
  source:
    repoURL: ` + repoURL + `
    targetRevision: main
    path: ` + path + `
` + extra + `
  destination:
    server: https://kubernetes.default.svc
    namespace: ` + ns + "\n"
}

func configMap(name string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\ndata:\n  k: v\n"
}

// clusterOutcome is the analysis of one destination cluster.
type clusterOutcome struct {
	Cluster *Cluster
	*pipeline.Outcome
}

// analyzeClusters analyzes each cluster of res as `argocd analyze` does
// (internal/action): its objects with its coverage analyzers and
// unrendered scopes, findings named by Application.
func analyzeClusters(t *testing.T, res *Result) []clusterOutcome {
	t.Helper()
	cfg, err := pipeline.LoadConfig("", res.RepoRoot, res.RepoRoot)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Transforms = nil
	var out []clusterOutcome
	for _, check := range res.Checks(CheckOptions{Now: time.Now()}) {
		c := check.Cluster
		o, err := pipeline.Run(context.Background(), pipeline.Input{Objects: c.Set, AppDir: res.RepoRoot, RepoRoot: res.RepoRoot, Config: cfg},
			pipeline.Changes{}, pipeline.Analysis{FailOn: analysis.FailOnError, DefaultNamespace: "default", Analyzers: check.Analyzers, Unrendered: c.Unrendered})
		if err != nil {
			t.Fatalf("cluster %s: %v", c.Name(), err)
		}
		c.Attribute(o.Findings)
		out = append(out, clusterOutcome{Cluster: c, Outcome: o})
	}
	return out
}
