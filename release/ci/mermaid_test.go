package ci

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The Mermaid the route map writes (`routeguard map -o mermaid`, the map in
// `routeguard diff -o markdown`) is parsed by the mermaid package itself
// (scripts/check-mermaid: mermaid.parse under jsdom, versions pinned by its
// package-lock.json), the parser GitHub's and GitLab's renderers run.

var (
	checkerOnce sync.Once
	checkerDir  string
	checkerErr  error
)

// mermaidChecker installs scripts/check-mermaid's packages with `npm ci`
// (the locked versions, no install scripts) into a cache directory named
// after the hash of package.json and package-lock.json, once; later runs
// reuse it. check.mjs is copied there on every run.
func mermaidChecker(t *testing.T) string {
	t.Helper()
	checkerOnce.Do(func() {
		for _, tool := range []string{"node", "npm"} {
			if _, err := exec.LookPath(tool); err != nil {
				checkerErr = fmt.Errorf("the Mermaid check needs %s (Node.js 20.19 or later) on PATH: %v", tool, err)
				return
			}
		}
		src := filepath.Join(root, "scripts", "check-mermaid")
		files := []string{"package.json", "package-lock.json", "check.mjs"}
		h := sha256.New()
		data := map[string][]byte{}
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(src, f))
			if err != nil {
				checkerErr = err
				return
			}
			data[f] = b
			if f != "check.mjs" { // the packages depend on these
				fmt.Fprintf(h, "%s %d\n", f, len(b))
				h.Write(b)
			}
		}
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		dir := filepath.Join(cache, "routeguard", fmt.Sprintf("check-mermaid-%x", h.Sum(nil)[:8]))
		// The script itself is written next to the packages every run.
		defer func() {
			if checkerErr != nil {
				return
			}
			tmp := filepath.Join(dir, fmt.Sprintf(".check-%d.mjs", os.Getpid()))
			if checkerErr = os.WriteFile(tmp, data["check.mjs"], 0o644); checkerErr == nil {
				checkerErr = os.Rename(tmp, filepath.Join(dir, "check.mjs"))
			}
		}()
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "mermaid", "package.json")); err == nil {
			checkerDir = dir
			return
		}
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			checkerErr = err
			return
		}
		tmp, err := os.MkdirTemp(filepath.Dir(dir), "check-mermaid-install-")
		if err != nil {
			checkerErr = err
			return
		}
		defer os.RemoveAll(tmp)
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(tmp, f), data[f], 0o644); err != nil {
				checkerErr = err
				return
			}
		}
		cmd := exec.Command("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = tmp
		if out, err := cmd.CombinedOutput(); err != nil {
			checkerErr = fmt.Errorf("npm ci in a copy of scripts/check-mermaid: %v\n%s", err, out)
			return
		}
		if err := os.Rename(tmp, dir); err != nil && !os.IsExist(err) {
			// Another run installed it meanwhile: use that one.
			if _, statErr := os.Stat(filepath.Join(dir, "node_modules", "mermaid")); statErr != nil {
				checkerErr = err
				return
			}
		}
		checkerDir = dir
	})
	if checkerErr != nil {
		t.Fatal(checkerErr)
	}
	return checkerDir
}

// checkMermaid runs the checker on files and returns its verdict per file:
// "ok" when every diagram of the file parsed, else the parser's messages.
func checkMermaid(t *testing.T, files []string) map[string]string {
	t.Helper()
	dir := mermaidChecker(t)
	cmd := exec.Command("node", append([]string{filepath.Join(dir, "check.mjs")}, files...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		t.Fatalf("check.mjs: %v\n%s%s", err, out, stderr.Bytes())
	}
	verdict := map[string]string{}
	var last string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "    ") && last != "" {
			verdict[last] += "\n" + line
			continue
		}
		for _, f := range files {
			rest, ok := strings.CutPrefix(line, f+":")
			if !ok {
				continue
			}
			last = f
			switch {
			case strings.Contains(rest, ": ok "):
				if verdict[f] == "" {
					verdict[f] = "ok"
				}
			default:
				if verdict[f] == "ok" {
					verdict[f] = ""
				}
				verdict[f] += strings.TrimSpace(rest)
			}
		}
	}
	return verdict
}

// hostileApp is an app whose names, hosts and matches hold what Mermaid
// and Markdown treat as syntax, non-ASCII text, wildcards, long names and
// empty hosts (an empty quoted label is a Mermaid parse error).
const hostileApp = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: hostile-route-with-a-name-that-goes-on-and-on-and-on-and-on-and-on-and-on-and-on-and-on-and-on-and-on, namespace: shop}
spec:
  parentRefs: [{name: public, namespace: edge, sectionName: https}]
  hostnames: ["*.example.com", "bücher.example.com", "日本.example.com", "a\"b'c.example.com", "end"]
  rules:
  - matches:
    - path: {type: PathPrefix, value: "/a\"b[c]|d{e}(f)<g>#h;%20 --> x"}
      headers: [{name: x-route, value: "|\"]) click n0 \"javascript:alert(1)\" %%{init}%%"}]
    - path: {type: Exact, value: "/#34;/&amp;/;;/🙂/` + "```" + `"}
    backendRefs:
    - {name: api-blue, port: 8080, weight: 7}
    - {name: web, port: 80, weight: 3}
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: "subgraph", namespace: bookinfo}
spec:
  hosts: ["reviews", "*.bookinfo.example.com", "ünïcødé.example"]
  http:
  - match: [{uri: {regex: "^/(a|b)[0-9]{2,}\\.json$"}}]
    route:
    - {destination: {host: reviews, subset: v1}, weight: 100}
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: empty, namespace: bookinfo}
spec:
  hosts: [""]
  http:
  - route:
    - {destination: {host: ""}, weight: 100}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: no-host, namespace: shop}
spec:
  parentRefs: [{name: public, namespace: edge}]
  hostnames: [""]
  rules:
  - backendRefs: [{name: web, port: 80}]
`

// hostileNames: quotes, brackets, braces and pipes in the names of routes,
// parents, listeners, backends and subsets (the boxes of the map). In the
// diff, the parent that does not exist is a detached attachment (no box);
// the map of apps/shop alone, without the Gateways, draws it.
// hostileNames puts hostile text where a rendered object may hold it: in
// references (an object's own name must be one the API server accepts, or
// the app does not render).
const hostileNames = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: quotes, namespace: shop}
spec:
  parentRefs: [{name: public, namespace: edge, sectionName: https}, {name: "pub|lic\"]", namespace: edge, sectionName: "ht[tp]s"}]
  hostnames: ["x.example.com"]
  rules:
  - backendRefs:
    - {name: "we|b[\"x\"]{y}", port: 80, weight: 1}
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: vs, namespace: bookinfo}
spec:
  hosts: ["reviews"]
  gateways: ["istio-system/g|w\"]"]
  http:
  - route:
    - {destination: {host: "rev|iews\"]", subset: "v[1]"}, weight: 100}
`

// TestMermaidParses feeds the checker the route maps of the examples and of
// a repository with hostile names, and the pull request comments of a
// repository with four commits (internal/routediff's test repository; then
// weights changed, a route removed and a hostile app added; then a listener
// renamed; then an app removed), plus the golden comment of
// internal/routediff. Every diagram must parse. A diagram known
// to be broken must not: the checker is not a no-op.
func TestMermaidParses(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	var files []string
	add := func(name string, data []byte) {
		t.Helper()
		p := filepath.Join(out, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}

	golden, err := filepath.Glob(filepath.Join(root, "internal", "routediff", "testdata", "golden", "*.md"))
	if err != nil || len(golden) == 0 {
		t.Fatalf("no golden Markdown in internal/routediff/testdata/golden: %v", err)
	}
	files = append(files, golden...)

	// Maps of the examples.
	for _, app := range []string{"examples/apps/routing/gateways", "examples/apps/routing/ingresses", "examples/apps/routing/istio",
		"examples/apps/edge"} {
		code, mm := routeguardExit(t, root, "map", "-o", "mermaid", app)
		if code != 0 || !bytes.Contains(mm, []byte("-->")) {
			t.Fatalf("routeguard map -o mermaid %s: exit %d, no arrow:\n%s", app, code, mm)
		}
		add(strings.ReplaceAll(app, "/", "_")+".mmd", mm)
	}

	// A two-commit repository: internal/routediff's test repository, then
	// weights changed, a route removed and a hostile app added.
	repo := t.TempDir()
	if err := os.CopyFS(repo, os.DirFS(filepath.Join(root, "internal", "routediff", "testdata", "repo"))); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "init", "-q")
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-q", "-m", "base")
	routes := filepath.Join(repo, "apps", "shop", "routes.yaml")
	data, err := os.ReadFile(routes)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), "weight: 90}", "weight: 50}", 1)
	changed = strings.Replace(changed, "weight: 10}", "weight: 50}", 1)
	changed = strings.Replace(changed, "  - backendRefs: [{name: web, port: 80}]\n", "", 1)
	if changed == string(data) {
		t.Fatal("the change to apps/shop/routes.yaml did not apply")
	}
	if err := os.WriteFile(routes, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"hostile.yaml": hostileApp, "hostile-names.yaml": hostileNames} {
		if err := os.WriteFile(filepath.Join(repo, "apps", "shop", name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-q", "-m", "head")

	// Then a listener renamed (its routes detach), then an app removed.
	gateway := filepath.Join(repo, "platform", "gateway.yaml")
	data, err = os.ReadFile(gateway)
	if err != nil || !bytes.Contains(data, []byte("- name: https")) {
		t.Fatalf("platform/gateway.yaml: %v", err)
	}
	if err := os.WriteFile(gateway, bytes.Replace(data, []byte("- name: https"), []byte("- name: websecure"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "commit", "-q", "-a", "-m", "listener renamed")
	if err := os.RemoveAll(filepath.Join(repo, "apps", "reviews")); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-q", "-m", "app removed")
	for _, rev := range [][2]string{{"HEAD~2", "HEAD~1"}, {"HEAD~1", "HEAD"}} {
		code, md := routeguardExit(t, repo, "diff", "--base", rev[0], "--head", rev[1], "-o", "markdown", "platform", "apps/shop", "apps/reviews")
		if code != 1 || !bytes.Contains(md, []byte("```mermaid\n")) {
			t.Fatalf("routeguard diff %s..%s -o markdown: exit %d (want 1), map in the comment: %v\n%s", rev[0], rev[1], code, bytes.Contains(md, []byte("```mermaid")), md)
		}
		add(fmt.Sprintf("diff-%s.md", strings.ReplaceAll(rev[1], "~", "-")), md)
	}

	code, md := routeguardExit(t, repo, "diff", "--base", "HEAD~3", "--head", "HEAD~2", "-o", "markdown", "platform", "apps/shop", "apps/reviews")
	if code != 1 || !bytes.Contains(md, []byte("```mermaid\n")) {
		t.Fatalf("routeguard diff -o markdown: exit %d (want 1, routing changed), map in the comment: %v\n%s", code, bytes.Contains(md, []byte("```mermaid")), md)
	}
	for _, want := range []string{"w 90 #8594; w 50", "#42;.example.com", "a#34;b#39;c.example.com", "#252;n#239;c#248;d#233;.example",
		`["HTTPRoute shop/quotes"]`, `[("Service shop/we#124;b#91;#34;x#34;#93;#123;y#125;:80")]`} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("the comment's map lacks %q:\n%s", want, md)
		}
	}
	add("diff.md", md)
	code, md = routeguardExit(t, repo, "diff", "--base", "HEAD~2", "--head", "HEAD~3", "-o", "markdown", "platform", "apps/shop", "apps/reviews")
	if code != 1 || !bytes.Contains(md, []byte(":::removed")) {
		t.Fatalf("routeguard diff -o markdown (reverse): exit %d, no removed box:\n%s", code, md)
	}
	add("diff-reverse.md", md)
	gitIn(t, repo, "checkout", "-q", "HEAD~2") // the hostile app, all apps present
	for _, app := range []string{"apps/shop", "apps/reviews"} {
		code, mm := routeguardExit(t, repo, "map", "-o", "mermaid", app)
		if code != 0 || !bytes.Contains(mm, []byte("-->")) {
			t.Fatalf("routeguard map -o mermaid %s: exit %d:\n%s", app, code, mm)
		}
		if want := `[/"Gateway edge/pub#124;lic#34;#93; listener ht#91;tp#93;s"/]`; app == "apps/shop" && !bytes.Contains(mm, []byte(want)) {
			t.Errorf("the map of apps/shop lacks %s:\n%s", want, mm)
		}
		add("hostile_"+strings.ReplaceAll(app, "/", "_")+".mmd", mm)
	}

	// An app with 600 arrows: Mermaid refuses more than 500.
	many := t.TempDir()
	var manyRoutes strings.Builder
	for i := range 300 {
		fmt.Fprintf(&manyRoutes, "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r%d, namespace: shop}\n"+
			"spec: {parentRefs: [{name: public, namespace: edge}], hostnames: [h%d.example.com], rules: [{backendRefs: [{name: s%d, port: 80}]}]}\n", i, i, i)
	}
	if err := os.WriteFile(filepath.Join(many, "routes.yaml"), []byte(manyRoutes.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, mm := routeguardExit(t, many, "map", "-o", "mermaid", ".")
	if code != 0 || !bytes.Contains(mm, []byte("100 more arrows")) {
		t.Fatalf("routeguard map -o mermaid of 600 arrows: exit %d, no note of the 100 left out:\n%.500s", code, mm)
	}
	add("many.mmd", mm)

	// The checker must refuse what Mermaid refuses: an unescaped quote in a
	// label, and a Markdown file without a Mermaid block.
	add("broken.mmd", []byte("flowchart LR\n  n0[\"a \" b\"] --> n1\n"))
	add("no-block.md", []byte("# no diagram\n"))

	verdict := checkMermaid(t, files)
	for _, f := range files {
		rel, _ := filepath.Rel(out, f)
		switch filepath.Base(f) {
		case "broken.mmd":
			if !strings.Contains(verdict[f], "Parse error") {
				t.Errorf("the checker accepted a broken diagram: %q", verdict[f])
			}
		case "no-block.md":
			if !strings.Contains(verdict[f], "no mermaid block") {
				t.Errorf("the checker accepted a Markdown file without a diagram: %q", verdict[f])
			}
		default:
			if verdict[f] != "ok" {
				data, _ := os.ReadFile(f)
				t.Errorf("%s: mermaid does not parse it: %s\n%s", rel, verdict[f], data)
			}
		}
	}
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
