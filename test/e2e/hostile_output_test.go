package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/routeguard/routeguard/test/harness"
)

// Output hygiene (docs/security.md): what a pull request can put in names
// reaches comments, job summaries and CI logs capped and inert.

// committedRepo writes files into a fresh git repository and commits them;
// the work tree is then changed by change (a value "" removes the file).
func committedRepo(t *testing.T, files, change map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	write := func(fs map[string]string) {
		for name, content := range fs {
			p := filepath.Join(dir, name)
			if content == "" {
				os.Remove(p)
				continue
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(files)
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddGlob("."); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000, 0)}
	if _, err := wt.Commit("base", &git.CommitOptions{Author: sig}); err != nil {
		t.Fatal(err)
	}
	write(change)
	return dir
}

func application(name, path string) string {
	return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: " + name + ", namespace: argocd}\nspec:\n  project: default\n" +
		"  source: {repoURL: https://git.example.com/x.git, targetRevision: main, path: " + path + "}\n" +
		"  destination: {server: https://kubernetes.default.svc, namespace: shop}\n"
}

// The comment of `argocd diff` stays under GitHub's limit: 10 Applications
// named with 30,000 characters that render at neither revision made a
// 751,293-character comment (each name in full in the "not compared"
// list); an Application whose chart name holds "not compared" landed in
// that list although it was compared.
func TestHostileDiffCommentCapped(t *testing.T) {
	files := map[string]string{
		"kapp/kustomization.yaml": "resources: [cm.yaml]\nhelmCharts:\n- {name: \"web not compared\", repo: https://charts.example.com, version: 1.0.0, releaseName: web}\n",
		"kapp/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
		"apps/charts.yaml":        application("charts", "kapp"),
	}
	for i := range 10 {
		name := string(rune('a'+i)) + strings.Repeat("x", 30000)
		files["apps/app"+string(rune('a'+i))+".yaml"] = application(name, "nope")
	}
	dir := committedRepo(t, files, map[string]string{"apps/charts.yaml": application("charts", "kapp") + "# changed\n"})
	r := harness.Run(t, harness.Options{Dir: dir}, "argocd", "diff", "--base", "HEAD", "-o", "markdown", "--repo-url", "https://git.example.com/x.git", "apps")
	if r.Code == 2 {
		t.Fatalf("exit 2: %s", r.Stderr)
	}
	md := r.Stdout
	if len(md) > 60000 {
		t.Fatalf("the comment is %d bytes, over 60,000", len(md))
	}
	for _, want := range []string{"> ⚠️ 10 part(s) could be built at neither revision", "…(+", " characters)"} {
		if !strings.Contains(md, want) {
			t.Errorf("the comment lacks %q:\n%.3000s", want, md)
		}
	}
	// The list of what was built at neither revision (the "> - " lines)
	// leaves the chart's app out; the table of parts not built may name it,
	// built partly (its chart is not in the repository).
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "> - ") && strings.Contains(line, "web not compared") {
			t.Errorf("the chart named 'web not compared' is listed as not compared: %.500s", line)
		}
	}
}

// Markup, mentions and links from the repository are inert in the comment
// (GitHub and GitLab decode character references before they look for
// mentions and links: a zero-width space breaks them), and no line of it
// could be read as a workflow command.
func TestHostileDiffCommentEscaped(t *testing.T) {
	route := func(host string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: public, namespace: shop}\n" +
			"spec: {gatewayClassName: envoy, listeners: [{name: http, protocol: HTTP, port: 80}]}\n---\n" +
			"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: web, namespace: shop}\n" +
			"spec:\n  parentRefs: [{name: public}]\n  hostnames: [" + host + "]\n  rules: [{backendRefs: [{name: web, port: 80}]}]\n"
	}
	dir := committedRepo(t, map[string]string{"app/route.yaml": route("web.example.com")},
		map[string]string{"app/route.yaml": route(`"<img src=x onerror=alert(1)> @octocat https://evil.example www.evil.example ::error::x ` + "```" + `"`)})
	r := harness.Run(t, harness.Options{Dir: dir}, "diff", "--base", "HEAD", "-o", "markdown", "app")
	if r.Code == 2 {
		t.Fatalf("exit 2: %s", r.Stderr)
	}
	md := r.Stdout
	if !strings.Contains(md, "&#64;&#8203;octocat") || !strings.Contains(md, "https:&#8203;//evil.example") || !strings.Contains(md, "www&#8203;.evil.example") {
		t.Errorf("mention or links not neutralized:\n%s", md)
	}
	outside := regexp.MustCompile("(?s)```mermaid.*?```").ReplaceAllString(md, "")
	for _, raw := range []string{"<img", "@octocat", "https://evil", "www.evil"} {
		if strings.Contains(outside, raw) {
			t.Errorf("the comment holds %q:\n%s", raw, md)
		}
	}
	if strings.Count(md, "```") != 2 {
		t.Errorf("a code fence was broken (%d fences):\n%s", strings.Count(md, "```"), md)
	}
}

// A directory named like a workflow command cannot start a line of the
// text report (GitHub's runner trims leading white space, so indenting is
// not enough), nor can repository text in an error on stderr.
func TestHostileNoWorkflowCommands(t *testing.T) {
	dir := "::error title=forged::owned"
	repo, _ := hostileRepo(t, map[string]string{
		dir + "/route.yaml":       "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: web, namespace: shop}\nspec: {}\n",
		"kapp/kustomization.yaml": "resources: [\"missing\\n::error title=forged::from stderr\\n##[error]legacy\"]\n",
	})
	for _, args := range [][]string{{"analyze", "-o", "text", "--repo-root", ".", dir}, {"render", "--repo-root", ".", "kapp"}} {
		r := harness.Run(t, harness.Options{Dir: repo}, args...)
		if !strings.Contains(r.Stdout+r.Stderr, `\x3a:error title=forged`) {
			t.Errorf("%v: the forged name is not shown escaped (exit %d):\nstdout: %s\nstderr: %s", args, r.Code, r.Stdout, r.Stderr)
		}
		for _, l := range strings.FieldsFunc(r.Stdout+"\n"+r.Stderr, func(c rune) bool { return c == '\n' || c == '\r' }) {
			if strings.HasPrefix(strings.TrimSpace(l), "::") || strings.Contains(l, "##[") {
				t.Errorf("%v: a line is a workflow command: %q", args, l)
			}
		}
	}
}
