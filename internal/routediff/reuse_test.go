package routediff

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/pipeline"
)

// kustomizeRepo is a repository of Kustomize apps over shared bases, as
// home-lab and platform repositories are laid out: apps/a and apps/b build
// bases/web (an HTTPRoute with a weighted split and its Services) into
// their namespaces, apps/c builds bases/other.
func kustomizeRepo(t *testing.T, change map[string]string) string {
	t.Helper()
	route := func(weight int) string {
		return fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web}
spec:
  parentRefs: [{name: public, namespace: edge}]
  hostnames: [web.example.com]
  rules:
  - backendRefs:
    - {name: web-blue, port: 80, weight: %d}
    - {name: web-green, port: 80, weight: %d}
`, weight, 100-weight)
	}
	svc := func(name string) string {
		return "apiVersion: v1\nkind: Service\nmetadata: {name: " + name + "}\nspec: {ports: [{port: 80}]}\n"
	}
	files := map[string]string{
		"platform/gateway.yaml":          "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: public, namespace: edge}\nspec:\n  gatewayClassName: envoy\n  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]\n",
		"bases/web/kustomization.yaml":   "resources: [route.yaml, services.yaml]\n",
		"bases/web/route.yaml":           route(90),
		"bases/web/services.yaml":        svc("web-blue") + "---\n" + svc("web-green"),
		"bases/other/kustomization.yaml": "resources: [svc.yaml]\n",
		"bases/other/svc.yaml":           svc("other"),
		"apps/a/kustomization.yaml":      "namespace: a\nresources: [../../bases/web]\n",
		"apps/b/kustomization.yaml":      "namespace: b\nresources: [../../bases/web]\n",
		"apps/c/kustomization.yaml":      "namespace: c\nresources: [../../bases/other]\n",
		"README.md":                      "# platform\n",
	}
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	for p, c := range files {
		if err := write(dir, p, c); err != nil {
			t.Fatal(err)
		}
	}
	commit(t, r, "base")
	for p, c := range change {
		if p == "bases/web/route.yaml" {
			c = route(50)
		}
		if err := write(dir, p, c); err != nil {
			t.Fatal(err)
		}
	}
	commit(t, r, "head")
	return dir
}

// TestReuseFollowsKustomizeBases: a change to a shared base re-renders
// and re-analyzes exactly the apps built from it, at both revisions, and
// the routing of both shows; a change nothing reads re-renders nothing.
func TestReuseFollowsKustomizeBases(t *testing.T) {
	paths := []string{"platform", "apps/a", "apps/b", "apps/c"}
	for _, tt := range []struct {
		name     string
		change   map[string]string
		analyzed []string
		routes   int
	}{
		{"shared base changed", map[string]string{"bases/web/route.yaml": ""}, []string{"apps/a", "apps/b"}, 2},
		{"file nothing reads changed", map[string]string{"README.md": "# platform, edited\n"}, nil, 0},
		{"unused base changed", map[string]string{"bases/other/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: other2}\nspec: {ports: [{port: 80}]}\n"}, []string{"apps/c"}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := kustomizeRepo(t, tt.change)
			var mu sync.Mutex
			analyzed := map[string]int{}
			count := func(ctx context.Context, path, root string, analysis bool, trace *confine.Trace) (*pipeline.Outcome, error) {
				if analysis {
					rel, _ := filepath.Rel(root, path)
					mu.Lock()
					analyzed[filepath.ToSlash(rel)]++
					mu.Unlock()
				}
				return analyze(ctx, path, root, analysis, trace)
			}
			res, err := Compare(context.Background(), Options{Dir: dir, Base: "HEAD~1", Head: "HEAD", Paths: paths, TempDir: t.TempDir(), Analyze: count})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range tt.analyzed {
				if analyzed[p] != 2 {
					t.Errorf("%s analyzed %d times, want 2 (once per revision)", p, analyzed[p])
				}
			}
			if got := slices.Sorted(maps.Keys(analyzed)); !slices.Equal(got, tt.analyzed) {
				t.Errorf("analyzed %v, want %v", got, tt.analyzed)
			}
			if res.Reused != len(paths)-len(tt.analyzed) {
				t.Errorf("reused %d paths, want %d", res.Reused, len(paths)-len(tt.analyzed))
			}
			if n := len(res.Routing.Entries); n != tt.routes {
				t.Errorf("%d route entries changed, want %d: %+v", n, tt.routes, res.Routing.Entries)
			}
		})
	}
}

// TestFindingsOncePerKind: RG5007 is said once per kind, on the kind's
// first object; another object coming first is not a finding introduced
// and one fixed. Other findings stay matched by object.
func TestFindingsOncePerKind(t *testing.T) {
	f := func(code, kind, name string) analysis.Finding {
		return analysis.Finding{Code: code, Object: analysis.ObjectRef{APIVersion: "gateway.envoyproxy.io/v1alpha1", Kind: kind, Namespace: "a", Name: name}}
	}
	base := []analysis.Finding{f(analysis.CodeNoSchema, "SecurityPolicy", "first"), f("RG1101", "HTTPRoute", "web")}
	head := []analysis.Finding{f(analysis.CodeNoSchema, "SecurityPolicy", "other"), f("RG1101", "HTTPRoute", "api")}
	intro, fixed := compareFindings(base, head)
	if len(intro) != 1 || intro[0].Object.Name != "api" || len(fixed) != 1 || fixed[0].Object.Name != "web" {
		t.Errorf("introduced %+v, fixed %+v; want only the RG1101 pair", intro, fixed)
	}
}

// TestNotCompared: what fails to build at both revisions is said (a
// warning), not passed off as "no routing change"; what the change breaks
// is an introduced finding, not a warning.
func TestNotCompared(t *testing.T) {
	app := func(name string) analysis.Finding {
		return analysis.Finding{Code: analysis.CodeAppNotRendered, Message: "does not render: remote base",
			Object: analysis.ObjectRef{APIVersion: "argoproj.io/v1alpha1", Kind: "Application", Namespace: "argocd", Name: name}}
	}
	nothing := analysis.Finding{Code: analysis.CodeNothingChecked, Message: "holds no routing object",
		Object: analysis.ObjectRef{Kind: "Cluster", Name: "in-cluster"}}
	base := []analysis.Finding{app("a"), nothing}
	head := []analysis.Finding{app("a"), app("b"), nothing}
	got := notCompared(base, head)
	// RG0100 (no routing object) is not a part left unbuilt: its objects
	// were compared.
	if len(got) != 1 || !strings.Contains(got[0].Text, "RG0009 Application argocd/a at both revisions, not compared") ||
		got[0].Level != notice.Warning {
		t.Errorf("notices %+v", got)
	}
}

// TestNotComparedInMarkdown: the pull request comment says what was not
// compared, escaped like all repository text.
func TestNotComparedInMarkdown(t *testing.T) {
	dir := kustomizeRepo(t, map[string]string{"bases/web/route.yaml": "", "apps/c/kustomization.yaml": "resources: [missing|<b>.yaml]\n"})
	// apps/c breaks at head only: introduced, not "not compared".
	res, err := Compare(context.Background(), Options{Dir: dir, Base: "HEAD~1", Head: "HEAD", Paths: []string{"apps/a", "apps/c"}, TempDir: t.TempDir(), Analyze: analyze})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.NotCompared) != 0 {
		t.Errorf("not compared %v, want none", res.NotCompared)
	}
	// Broken at both revisions: said in the comment.
	res.NotCompared = []string{"RG0009 Application argocd/x|<b> at both revisions, not compared: remote base"}
	var b bytes.Buffer
	if err := res.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "could be built at neither revision") || strings.Contains(b.String(), "x|<b>") {
		t.Errorf("markdown:\n%s", b.String())
	}
}
