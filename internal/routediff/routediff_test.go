package routediff

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var appPaths = []string{"platform", "apps/shop", "apps/reviews"}

// repoWithChange builds a repository whose first commit is testdata/repo
// and whose second commit applies change (path -> content; "" deletes),
// with go-git (no git binary), fixed author and time.
func repoWithChange(t *testing.T, change map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir("testdata/repo", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("testdata/repo", p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return write(dir, rel, string(data))
	})
	if err != nil {
		t.Fatal(err)
	}
	commit(t, r, "base")
	if change != nil {
		for p, content := range change {
			if content == "" {
				if err := os.Remove(filepath.Join(dir, p)); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := write(dir, p, content); err != nil {
				t.Fatal(err)
			}
		}
		commit(t, r, "head")
	}
	return dir
}

func write(root, rel, content string) error {
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

func commit(t *testing.T, r *git.Repository, msg string) {
	t.Helper()
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "test", Email: "test@example.com", When: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	if _, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true}); err != nil {
		t.Fatal(err)
	}
}

// analyze renders the app (the render source) and takes it through the
// pipeline, as routeguard diff's action does.
func analyze(ctx context.Context, path, root string, analyze bool, trace *confine.Trace) (*pipeline.Outcome, error) {
	res, err := render.Render(ctx, render.Options{Path: path, RepoRoot: root, MaxFileBytes: manifest.DefaultMaxFileBytes, Trace: trace})
	if err != nil {
		return nil, err
	}
	in := pipeline.Input{Objects: res.Set, AppDir: filepath.Join(res.RepoRoot, filepath.FromSlash(res.Path)), RepoRoot: res.RepoRoot, Trace: trace}
	if !analyze {
		return pipeline.Prepare(ctx, in, pipeline.Changes{})
	}
	return pipeline.Run(ctx, in, pipeline.Changes{}, pipeline.Analysis{})
}

func run(t *testing.T, dir, base, head string) *Result {
	t.Helper()
	res, err := Compare(context.Background(), Options{Dir: dir, Base: base, Head: head, Paths: appPaths,
		TempDir: t.TempDir(), Analyze: analyze})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// edit returns testdata/repo/<file> with each old -> new replacement done
// once (the test fails when old is absent, so a fixture edit cannot
// silently turn a case into "no change").
func edit(t *testing.T, file string, pairs ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata/repo", file))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for i := 0; i < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("%s: %q not found", file, pairs[i])
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return s
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update once)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// TestChangeClasses runs one two-commit repository per change class and
// compares the text report with its golden file; routing and exit-relevant
// facts are asserted besides.
func TestChangeClasses(t *testing.T) {
	tests := []struct {
		name    string
		change  func(t *testing.T) map[string]string
		routing bool // the routing changed
		intro   int  // findings introduced
		fixed   int
	}{
		{name: "none", change: func(t *testing.T) map[string]string { return map[string]string{} }},
		{name: "weights", routing: true, change: func(t *testing.T) map[string]string {
			return map[string]string{
				"apps/shop/routes.yaml":   edit(t, "apps/shop/routes.yaml", "weight: 90", "weight: 50", "weight: 10", "weight: 50"),
				"apps/reviews/istio.yaml": edit(t, "apps/reviews/istio.yaml", "weight: 80", "weight: 0", "weight: 20", "weight: 100"),
			}
		}},
		{name: "route-added-removed", routing: true, intro: 2, change: func(t *testing.T) map[string]string {
			return map[string]string{
				"apps/shop/routes.yaml": edit(t, "apps/shop/routes.yaml", "  - host: old.example.com", "  - host: legacy.example.com"),
				"apps/shop/checkout.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: checkout, namespace: shop}
spec:
  parentRefs: [{name: public, namespace: edge, sectionName: https}]
  hostnames: [checkout.example.com]
  rules: [{backendRefs: [{name: web, port: 80}]}]
`,
			}
		}},
		{name: "attachment", routing: true, change: func(t *testing.T) map[string]string {
			// The http listener admits routes of its own namespace only.
			return map[string]string{"apps/shop/routes.yaml": edit(t, "apps/shop/routes.yaml", "sectionName: https", "sectionName: http")}
		}},
		{name: "listener-tls", routing: true, intro: 1, change: func(t *testing.T) map[string]string {
			return map[string]string{
				"platform/gateway.yaml": edit(t, "platform/gateway.yaml", "certificateRefs: [{name: wildcard-example-com}]", "certificateRefs: [{name: wildcard-2027}]"),
				"apps/shop/routes.yaml": edit(t, "apps/shop/routes.yaml", "secretName: old-tls", "secretName: old-tls-2027"),
			}
		}},
		{name: "listener-renamed", routing: true, change: func(t *testing.T) map[string]string {
			// Only platform/ changes; apps/shop is rendered once, yet its
			// route's detachment shows.
			return map[string]string{"platform/gateway.yaml": edit(t, "platform/gateway.yaml", "- name: https", "- name: websecure")}
		}},
		{name: "referencegrant", routing: true, change: func(t *testing.T) map[string]string {
			return map[string]string{"apps/shop/routes.yaml": edit(t, "apps/shop/routes.yaml", "namespace: edge}]\n  to", "namespace: gateways}]\n  to")}
		}},
		{name: "findings", routing: true, intro: 1, change: func(t *testing.T) map[string]string {
			// A typo in a backend: the route now points at a Service that
			// does not exist.
			return map[string]string{"apps/shop/routes.yaml": edit(t, "apps/shop/routes.yaml", "{name: api-green, port: 8080", "{name: api-gren, port: 8080")}
		}},
		{name: "other-objects", change: func(t *testing.T) map[string]string {
			return map[string]string{"apps/shop/services.yaml": edit(t, "apps/shop/services.yaml", "replicas: 2", "replicas: 3") +
				"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-config, namespace: shop}\ndata: {a: b}\n"}
		}},
		{name: "app-removed", routing: true, change: func(t *testing.T) map[string]string {
			return map[string]string{"apps/reviews/istio.yaml": ""}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := repoWithChange(t, tt.change(t))
			res := run(t, dir, "HEAD~1", "HEAD")
			if res.RoutingChanged() != tt.routing {
				t.Errorf("RoutingChanged() = %v, want %v", res.RoutingChanged(), tt.routing)
			}
			if len(res.Intro) != tt.intro || len(res.Fixed) != tt.fixed {
				t.Errorf("introduced %d fixed %d, want %d and %d: %+v / %+v", len(res.Intro), len(res.Fixed), tt.intro, tt.fixed, res.Intro, res.Fixed)
			}
			var text bytes.Buffer
			if err := res.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name+".txt", text.Bytes())
		})
	}
}

// TestFindingFixed reverses the findings case: base has the typo, head
// fixes it.
func TestFindingFixed(t *testing.T) {
	dir := repoWithChange(t, map[string]string{"apps/shop/routes.yaml": edit(t, "apps/shop/routes.yaml", "{name: api-green, port: 8080", "{name: api-gren, port: 8080")})
	res := run(t, dir, "HEAD", "HEAD~1")
	if len(res.Fixed) != 1 || len(res.Intro) != 0 {
		t.Fatalf("fixed %+v introduced %+v, want one fixed", res.Fixed, res.Intro)
	}
	if got := res.Fixed[0].Subject(); got != "HTTPRoute shop/shop" {
		t.Errorf("fixed finding is about %s", got)
	}
}

// TestWorkTreeHead: without --head the uncommitted work tree is compared.
func TestWorkTreeHead(t *testing.T) {
	dir := repoWithChange(t, nil)
	if err := write(dir, "apps/shop/routes.yaml", edit(t, "apps/shop/routes.yaml", "weight: 90", "weight: 70", "weight: 10", "weight: 30")); err != nil {
		t.Fatal(err)
	}
	res := run(t, dir, "", "")
	if res.Head.Name != "work tree" || res.Head.Hash != "" || res.Base.Name != "merge-base(HEAD, master)" {
		t.Errorf("revisions %+v -> %+v, want merge-base(HEAD, master) -> work tree", res.Base, res.Head)
	}
	if len(res.Routing.Entries) != 1 || res.Routing.Entries[0].Change != "changed" ||
		res.Routing.Entries[0].Head.Backends[0].Weight != 70 {
		t.Errorf("routing %+v, want one entry changed to 70/30", res.Routing.Entries)
	}
}

// TestMarkdownAndJSON checks the comment's marker, its escaping of
// repository text and the Mermaid map, and that the JSON parses with the
// routing changes in it.
func TestMarkdownAndJSON(t *testing.T) {
	dir := repoWithChange(t, map[string]string{
		"apps/shop/routes.yaml": edit(t, "apps/shop/routes.yaml", "weight: 90", "weight: 50", "weight: 10", "weight: 50",
			"hostnames: [shop.example.com]", "hostnames: [\"shop.example.com\", \"@someone <b>|`x` [l](http://e)\"]"),
	})
	res := run(t, dir, "HEAD~1", "HEAD")
	var md bytes.Buffer
	if err := res.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	golden(t, "weights.md", md.Bytes())
	for _, raw := range []string{"@someone", "<b>", "|`x`", "[l](http"} {
		if strings.Contains(md.String(), raw) {
			t.Errorf("markdown holds repository text %q unescaped", raw)
		}
	}
	if !strings.HasPrefix(md.String(), Marker+"\n") || !strings.Contains(md.String(), "```mermaid\nflowchart LR\n") {
		t.Errorf("markdown lacks the marker or the map:\n%s", md.String())
	}
	var doc struct {
		RoutingChanged bool `json:"routingChanged"`
		Routing        struct {
			Routes []struct{ Change string } `json:"routes"`
		} `json:"routing"`
		HeadMap struct{ Routes []any } `json:"headMap"`
	}
	var js bytes.Buffer
	if err := res.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if !doc.RoutingChanged || len(doc.Routing.Routes) == 0 || len(doc.HeadMap.Routes) == 0 {
		t.Errorf("json: %s", js.String())
	}
}

// TestReuse: an unchanged directory app is rendered once, without
// analysis, and a
// change that reaches every app from outside its directory (the root
// .routeguard.yaml) makes routeguard render them all again.
func TestReuse(t *testing.T) {
	dir := repoWithChange(t, map[string]string{
		"apps/shop/routes.yaml": edit(t, "apps/shop/routes.yaml", "weight: 90", "weight: 50", "weight: 10", "weight: 50"),
	})
	rendered := map[string]int{}
	var mu sync.Mutex
	count := func(ctx context.Context, path, root string, analysis bool, trace *confine.Trace) (*pipeline.Outcome, error) {
		rel, _ := filepath.Rel(root, path)
		if analysis {
			mu.Lock()
			rendered[filepath.ToSlash(rel)]++
			mu.Unlock()
		}
		return analyze(ctx, path, root, analysis, trace)
	}
	res, err := Compare(context.Background(), Options{Dir: dir, Base: "HEAD~1", Head: "HEAD", Paths: appPaths, TempDir: t.TempDir(), Analyze: count})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reused != 2 || rendered["apps/shop"] != 2 || rendered["platform"] != 0 || rendered["apps/reviews"] != 0 {
		t.Errorf("reused %d, analyzed %v; want only apps/shop analyzed (twice)", res.Reused, rendered)
	}
	// AllHeadFindings: the paths the change leaves alone are analyzed
	// once, at head, and their findings are in HeadFindings (the same
	// review otherwise).
	partial := res
	clear(rendered)
	res, err = Compare(context.Background(), Options{Dir: dir, Base: "HEAD~1", Head: "HEAD", Paths: appPaths, TempDir: t.TempDir(), Analyze: count, AllHeadFindings: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reused != 2 || rendered["apps/shop"] != 2 || rendered["platform"] != 1 || rendered["apps/reviews"] != 1 {
		t.Errorf("AllHeadFindings: reused %d, analyzed %v; want apps/shop twice, the others once", res.Reused, rendered)
	}
	if len(res.Intro) != len(partial.Intro) || len(res.Fixed) != len(partial.Fixed) || len(res.HeadFindings) <= len(partial.HeadFindings) {
		t.Errorf("AllHeadFindings: introduced %d fixed %d head %d; without: %d %d %d (want the same review and more head findings)",
			len(res.Intro), len(res.Fixed), len(res.HeadFindings), len(partial.Intro), len(partial.Fixed), len(partial.HeadFindings))
	}

	dir = repoWithChange(t, map[string]string{".routeguard.yaml": "severity:\n  RG4001: error\n"})
	res, err = Compare(context.Background(), Options{Dir: dir, Base: "HEAD~1", Head: "HEAD", Paths: appPaths, TempDir: t.TempDir(), Analyze: analyze})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reused != 0 {
		t.Errorf("reused %d paths although the root configuration changed", res.Reused)
	}
}

// TestPathThatDoesNotRender: a path that renders at neither revision is
// not compared and says so (a warning), without stopping the diff of the
// others; a path the change breaks is an introduced RG0009 error; the
// messages name the path, not the temporary directory.
func TestPathThatDoesNotRender(t *testing.T) {
	broken := "resources: [missing.yaml]\n"
	dir := repoWithChange(t, map[string]string{
		"apps/reviews/kustomization.yaml": broken,
		"apps/shop/routes.yaml":           edit(t, "apps/shop/routes.yaml", "weight: 90", "weight: 70", "weight: 10", "weight: 30"),
	})
	res := run(t, dir, "HEAD~1", "HEAD")
	if len(res.Routing.Entries) == 0 {
		t.Errorf("the shop change was not compared: %+v", res.Routing)
	}
	if len(res.Intro) != 1 || res.Intro[0].Code != "RG0009" || res.Intro[0].Source.File != "apps/reviews" ||
		strings.Contains(res.Intro[0].Message, dir) || strings.Contains(res.Intro[0].Message, os.TempDir()) {
		t.Fatalf("introduced %+v, want one RG0009 on apps/reviews without a temporary path", res.Intro)
	}
	// Said as an error, and every output format can write it (a finding
	// without a severity made the JSON report fail).
	if res.Intro[0].Severity != analysis.SeverityError {
		t.Errorf("RG0009 severity %v, want error", res.Intro[0].Severity)
	}
	var js bytes.Buffer
	if err := res.WriteJSON(&js); err != nil || !strings.Contains(js.String(), `"RG0009"`) {
		t.Errorf("json: %v\n%s", err, js.String())
	}

	// Broken at both revisions: neither introduced nor fixed, a notice.
	both := repoWithChange(t, map[string]string{"apps/reviews/kustomization.yaml": broken})
	if err := write(both, "apps/reviews/kustomization.yaml", broken); err != nil {
		t.Fatal(err)
	}
	res = run(t, both, "HEAD", "")
	if len(res.Intro) != 0 || len(res.Fixed) != 0 {
		t.Errorf("introduced %+v fixed %+v, want none", res.Intro, res.Fixed)
	}
	if len(res.Notices) != 1 || !strings.Contains(res.Notices[0].Text, "apps/reviews does not render") || !strings.Contains(res.Notices[0].Text, "not compared") {
		t.Errorf("notices %+v", res.Notices)
	}
}

// TestHeadFindingsAndRevisions: the result holds every finding of head
// (what --report writes), and Revisions names the directory each revision
// is built from before the first build.
func TestHeadFindingsAndRevisions(t *testing.T) {
	dir := repoWithChange(t, map[string]string{"apps/shop/routes.yaml": edit(t, "apps/shop/routes.yaml", "{name: api-green, port: 8080", "{name: api-gren, port: 8080")})
	var base, head Rev
	var roots []string
	built := map[string]string{}
	var mu sync.Mutex
	res, err := Compare(context.Background(), Options{Dir: dir, Base: "HEAD~1", Head: "HEAD", Paths: appPaths, TempDir: t.TempDir(),
		Revisions: func(b, h Rev, baseRoot, headRoot string) {
			mu.Lock()
			defer mu.Unlock()
			if len(built) != 0 {
				t.Error("Revisions was told after a build")
			}
			base, head, roots = b, h, []string{baseRoot, headRoot}
		},
		Analyze: func(ctx context.Context, path, root string, an bool, trace *confine.Trace) (*pipeline.Outcome, error) {
			mu.Lock()
			built[root] = path
			mu.Unlock()
			return analyze(ctx, path, root, an, trace)
		}})
	if err != nil {
		t.Fatal(err)
	}
	if base.Name != "HEAD~1" || head.Name != "HEAD" || len(roots) != 2 {
		t.Fatalf("Revisions: %+v %+v %v", base, head, roots)
	}
	for root := range built {
		if root != roots[0] && root != roots[1] {
			t.Errorf("a build from %s, neither revision's directory %v", root, roots)
		}
	}
	if len(res.Intro) != 1 {
		t.Fatalf("introduced %+v, want one", res.Intro)
	}
	found := false
	for _, f := range res.HeadFindings {
		if f.Code == res.Intro[0].Code && f.Subject() == res.Intro[0].Subject() {
			found = true
		}
	}
	if !found || len(res.HeadFindings) < len(res.Intro) {
		t.Errorf("head findings %+v lack the introduced one %+v", res.HeadFindings, res.Intro[0])
	}
}
