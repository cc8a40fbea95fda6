package routediff

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5"

	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/pipeline"
)

// twoRevisions commits base's files, then replaces the tree with head's
// (a value "-> target" is a symbolic link).
func twoRevisions(t *testing.T, base, head map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	put := func(files map[string]string) {
		for p, c := range files {
			if target, ok := strings.CutPrefix(c, "-> "); ok {
				os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
				if err := os.Symlink(target, filepath.Join(dir, p)); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := write(dir, p, c); err != nil {
				t.Fatal(err)
			}
		}
	}
	put(base)
	commit(t, r, "base")
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != ".git" {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
	put(head)
	commit(t, r, "head")
	return dir
}

func routeYAML(name string, weight int) string {
	return fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: %s}
spec:
  parentRefs: [{name: public, namespace: edge}]
  rules:
  - backendRefs:
    - {name: %s-blue, port: 80, weight: %d}
    - {name: %s-green, port: 80, weight: %d}
`, name, name, weight, name, 100-weight)
}

// TestOnDemandReviewIsTheWholeReview: a review whose revisions are written
// as the renders ask (ondemand.go) is the review of whole exports, byte for
// byte, where the base's renders read what no head render did: an overlay
// whose base moved, a chain of bases only the base revision has, a link
// out of the path, a path only the base has, a repository configuration
// only the base has; and each path is reported analyzed once per revision
// although some are rendered again.
func TestOnDemandReviewIsTheWholeReview(t *testing.T) {
	gateway := "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: public, namespace: edge}\nspec:\n  gatewayClassName: envoy\n  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]\n"
	base := map[string]string{
		"platform/gateway.yaml":           gateway,
		"apps/a/kustomization.yaml":       "namespace: a\nresources: [../../bases/old]\n",
		"bases/old/kustomization.yaml":    "resources: [../older, route.yaml]\n",
		"bases/old/route.yaml":            routeYAML("web", 90),
		"bases/older/kustomization.yaml":  "resources: [svc.yaml]\n",
		"bases/older/svc.yaml":            "apiVersion: v1\nkind: Service\nmetadata: {name: web-blue}\nspec: {ports: [{port: 80}]}\n",
		"apps/l/route.yaml":               "-> ../../shared/route.yaml",
		"shared/route.yaml":               routeYAML("linked", 70),
		"apps/gone/route.yaml":            routeYAML("gone", 10),
		"apps/d/route.yaml":               routeYAML("dir", 60),
		"apps/d/more/extra.yaml":          routeYAML("extra", 40),
		"apps/same/route.yaml":            routeYAML("same", 80),
		".routeguard.yaml":                "failOn: warning\n",
		"unread/lots/of/files/here.yaml":  "x: 1\n",
		"unread/lots/of/files/there.yaml": "y: 2\n",
	}
	head := map[string]string{
		"platform/gateway.yaml":          gateway,
		"apps/a/kustomization.yaml":      "namespace: a\nresources: [../../bases/web]\n",
		"bases/web/kustomization.yaml":   "resources: [route.yaml]\n",
		"bases/web/route.yaml":           routeYAML("web", 50),
		"apps/l/route.yaml":              routeYAML("linked", 75),
		"apps/d/route.yaml":              routeYAML("dir", 65),
		"apps/same/route.yaml":           routeYAML("same", 80),
		"apps/new/route.yaml":            routeYAML("new", 20),
		"unread/lots/of/files/here.yaml": "x: 1\n",
	}
	dir := twoRevisions(t, base, head)
	paths := []string{"platform", "apps/a", "apps/l", "apps/gone", "apps/d", "apps/same", "apps/new"}
	review := func(whole bool) (string, map[string]int, map[string]int) {
		var mu sync.Mutex
		renders, analyzed := map[string]int{}, map[string]int{}
		count := func(ctx context.Context, path, root string, analysis bool, trace *confine.Trace) (*pipeline.Outcome, error) {
			if analysis {
				rel, _ := filepath.Rel(root, path)
				mu.Lock()
				renders[filepath.Base(root)+":"+filepath.ToSlash(rel)]++
				mu.Unlock()
			}
			return analyze(ctx, path, root, analysis, trace)
		}
		opts := Options{Dir: dir, Base: "HEAD~1", Head: "HEAD", Paths: paths, TempDir: t.TempDir(), Analyze: count,
			Review: ReviewBoth, AllHeadFindings: true, exportWhole: whole,
			Analyzed: func(root, rel string, err error) {
				mu.Lock()
				analyzed[filepath.Base(root)+":"+rel]++
				mu.Unlock()
			}}
		res, err := Compare(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		js, err := json.MarshalIndent(res, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		var md bytes.Buffer
		if err := res.WriteMarkdown(&md); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%s\n%s\nintroduced %v\nfixed %v\nremoved %v\nhead %v\nnotices %v", js, md.String(),
			res.Intro, res.Fixed, res.Removed, res.HeadFindings, res.Notices), renders, analyzed
	}
	want, _, _ := review(true)
	got, renders, analyzed := review(false)
	if got != want {
		t.Fatalf("on demand:\n%s\n\nwhole:\n%s", got, want)
	}
	for _, must := range []string{"weight: 50", "apps/gone", "apps/new"} {
		if !strings.Contains(want, must) {
			t.Errorf("the review does not show %q: the case does not test what it means to", must)
		}
	}
	// apps/a's base render read bases/old, then bases/older: rendered
	// three times, reported once.
	if renders["base:apps/a"] < 2 {
		t.Errorf("base apps/a rendered %d times: nothing was asked for on demand (%v)", renders["base:apps/a"], renders)
	}
	for k, n := range analyzed {
		if n != 1 {
			t.Errorf("%s reported analyzed %d times, want once", k, n)
		}
	}
	if len(analyzed) == 0 {
		t.Error("no path reported analyzed")
	}
}
