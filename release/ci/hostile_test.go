package ci

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A pull request from a fork controls every file of the checkout the
// integrations run in (docs/security.md, "CI"). These tests commit what an
// attacker would and check what the scripts do with it; the comment and
// note takeovers are in comment_test.go and gitlab_note_test.go.

// hostileLines is about n bytes of review lines: table rows with
// multi-byte characters, inside a <details> block and a code fence that
// a cut leaves open.
func hostileLines(n int) string {
	var b strings.Builder
	b.WriteString("\n<details><summary>more</summary>\n\n```text\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "| 🟢 added | Application argocd/app-%06d-%s | not compared: chart “é” |\n", i, strings.Repeat("x", i%200))
	}
	b.WriteString("```\n\n</details>\n")
	return b.String()
}

var leftOutRE = regexp.MustCompile(`^_… (\d+) of (\d+) lines \((\d+) of (\d+) bytes\) left out here: (.*)\._$`)

// checkCapped checks that body is full cut to at most limit bytes (so at
// most limit characters) after a whole line, with the code fence and
// <details> it left open closed, and a last line saying how much was left
// out, truthfully, and why (note).
func checkCapped(t *testing.T, what, body, full string, limit int, note string) {
	t.Helper()
	if len(body) > limit {
		t.Errorf("%s: %d bytes, over %d", what, len(body), limit)
	}
	k := strings.LastIndex(body, "\n_… ")
	if k < 0 {
		t.Fatalf("%s: no line says what was left out; it ends:\n%s", what, body[max(0, len(body)-300):])
	}
	m := leftOutRE.FindStringSubmatch(strings.TrimSuffix(body[k+1:], "\n"))
	if m == nil || !strings.HasPrefix(m[5], note) {
		t.Fatalf("%s: last line %q, want the left-out line with %q", what, body[k+1:], note)
	}
	left, _ := strconv.Atoi(m[3])
	total, _ := strconv.Atoi(m[4])
	if total != len(full) || left <= 0 || left >= total {
		t.Errorf("%s: says %d of %d bytes left out; the review has %d", what, left, total, len(full))
	}
	kept := full[:total-left]
	if !strings.HasPrefix(body, kept) || !strings.HasSuffix(kept, "\n") {
		t.Fatalf("%s is not the review's first %d bytes cut after a line", what, total-left)
	}
	if lines := strings.Count(full, "\n"); m[2] != strconv.Itoa(lines) || m[1] != strconv.Itoa(lines-strings.Count(kept, "\n")) {
		t.Errorf("%s: says %s of %s lines left out; the review has %d lines, %d kept", what, m[1], m[2], lines, strings.Count(kept, "\n"))
	}
	closers := strings.Fields(body[len(kept):k])
	if strings.Count(kept, "```")%2 == 1 && !contains(closers, "```") {
		t.Errorf("%s: a code fence is left open (closed with %v)", what, closers)
	}
	if strings.Count(kept, "<details>") > strings.Count(kept, "</details>") && !contains(closers, "</details>") {
		t.Errorf("%s: a <details> is left open (closed with %v)", what, closers)
	}
	for _, c := range closers {
		if c != "```" && c != "</details>" && c != "</pre>" {
			t.Errorf("%s: %q between the kept lines and the left-out line", what, c)
		}
	}
}

// workflowCommands returns the lines of log a GitHub runner reads as
// workflow commands: those that start with "::" after leading spaces,
// except between ::stop-commands::TOKEN and ::TOKEN:: (the stop and the
// resume are listed as "stop-commands" and "resume").
func workflowCommands(log string) []string {
	var cmds []string
	stopped := ""
	for _, line := range strings.Split(log, "\n") {
		line = strings.TrimLeft(line, " \t")
		switch {
		case stopped != "":
			if line == "::"+stopped+"::" {
				stopped = ""
				cmds = append(cmds, "resume")
			}
		case strings.HasPrefix(line, "::stop-commands::"):
			stopped = strings.TrimPrefix(line, "::stop-commands::")
			cmds = append(cmds, "stop-commands")
		case strings.HasPrefix(line, "::"):
			cmds = append(cmds, line)
		}
	}
	return cmds
}

// checkOwnCommands: every workflow command in log is one of the action's
// own (title=routeguard), and output is resumed after every stop.
// annotationRE is a finding as the annotate step writes it.
var annotationRE = regexp.MustCompile(`^::(error|warning|notice) (file=[^,:]*,(line=[0-9]+,)?)?title=(RG|IST)[0-9]{4}[^,:]*::`)

func checkOwnCommands(t *testing.T, log string) {
	t.Helper()
	depth := 0
	for _, c := range workflowCommands(log) {
		switch {
		case c == "stop-commands":
			depth++
		case c == "resume":
			depth--
		case annotationRE.MatchString(c):
			// a finding, from the annotate step: its properties escaped
			// (no raw ':' or ','), its title a code routeguard reports
		case !strings.HasPrefix(c, "::error title=routeguard::") && !strings.HasPrefix(c, "::warning title=routeguard::") &&
			!strings.HasPrefix(c, "::notice title=routeguard::"):
			t.Errorf("a workflow command the action did not mean: %q", c)
		}
	}
	if depth != 0 {
		t.Errorf("workflow commands stopped and never resumed:\n%s", log)
	}
}

// TestActionReportsNotThroughLinks: every report name the action uses, and
// the names it used before, are committed in the checkout and planted in
// RUNNER_TEMP (as an earlier step running the pull request's code could)
// as symbolic links to a file outside and as directories. The reports are
// still written, in directories the steps create, and nothing outside
// changes.
func TestActionReportsNotThroughLinks(t *testing.T) {
	t.Parallel()
	needTools(t)
	names := []string{"routeguard.sarif", "routeguard-diff.md", "routeguard.stderr", "comment.md", "summary.md", "routeguard-" + releaseVersion}
	for _, kind := range []string{"symlink", "directory"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			outside := t.TempDir()
			target := filepath.Join(outside, "marker")
			if err := os.WriteFile(target, []byte("untouched\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			plant := func(dir string) {
				for _, n := range names {
					var err error
					if kind == "symlink" {
						err = os.Symlink(target, filepath.Join(dir, n))
					} else {
						err = os.Mkdir(filepath.Join(dir, n), 0o755)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
			}
			project := newProject(t)
			plant(project)
			for _, tt := range []struct{ command, paths, code string }{
				{"analyze", "examples/broken/dangling-service", "1"},
				{"diff", "examples/apps/routing/gateways", "0"},
			} {
				in := map[string]string{"version": "v" + releaseVersion, "download-url": serveRelease(t, false),
					"command": tt.command, "paths": tt.paths, "base": "HEAD"}
				r := runActionWith(t, actionOptions{inputs: in, dir: project, prepare: plant})
				if r.outputs["run"]["exit-code"] != tt.code {
					t.Fatalf("%s: exit-code %q, want %s:\n%s", tt.command, r.outputs["run"]["exit-code"], tt.code, r.log)
				}
				report := r.outputs["run"]["sarif-file"]
				if tt.command == "diff" {
					report = r.outputs["run"]["comment-file"]
				}
				if fi, err := os.Lstat(report); err != nil || !fi.Mode().IsRegular() || !strings.HasPrefix(report, r.runnerTemp+"/") {
					t.Errorf("%s: report %q: %v, want a regular file in RUNNER_TEMP", tt.command, report, err)
				}
				data, _ := os.ReadFile(report)
				if tt.command == "analyze" {
					if _, want := routeguardExit(t, project, "analyze", tt.paths, "-o", "sarif"); string(data) != string(want) {
						t.Errorf("the SARIF report differs from routeguard's:\n%s", data)
					}
					if !strings.Contains(r.summary, "| error | RG1101 |") {
						t.Errorf("the summary lacks the findings:\n%s", r.summary)
					}
				} else if !strings.HasPrefix(string(data), marker+"\n") || !strings.Contains(r.summary, "### routeguard: routing review") {
					t.Errorf("no review:\n%s\nsummary:\n%s", data, r.summary)
				}
			}
			if data, err := os.ReadFile(target); err != nil || string(data) != "untouched\n" {
				t.Errorf("the file outside was written through a link: %q %v", data, err)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 1 {
				t.Errorf("files appeared outside: %v", entries)
			}
		})
	}
}

// hostileRoute names objects with HTML, mentions, links, an issue
// reference, table and Markdown syntax and an escape character.
const hostileRoute = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: web
  namespace: shop
spec:
  parentRefs:
    - name: "gw<img src=x onerror=alert(1)>@mallory"
  rules:
    - backendRefs:
        - name: "svc \e[31m @mallory https://evil.example/x www.evil.example #4711 | [link](https://evil.example) <script>"
          port: 80
`

// rawInSummary is what repository text must never put into a job summary
// (a mention is "@" or its reference without the zero-width space after
// it: GitHub decodes references before it looks for mentions).
var rawInSummary = []string{"<img", "<script", "@mallory", "&#64;mallory", "#4711", "&#35;4711", "\x1b", "https://evil", "www.evil", "[link]",
	"https&#58;//", "www&#46;"}

// TestActionSummaryEscapes: the summary's findings table and its error
// block quote the repository's names and paths as text (no HTML, no
// mentions, no links, no control characters), and no line routeguard
// prints becomes a workflow command, even a file name with a newline
// followed by "::error".
func TestActionSummaryEscapes(t *testing.T) {
	t.Parallel()
	needTools(t)
	project := newProject(t)
	for name, content := range map[string]string{
		"hostile/route.yaml": hostileRoute,
		"broken/x\n::error title=forged::<img src=x>@mallory#4711.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  bad: [\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(project, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(project, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		paths string
		code  string
		want  []string // in the summary
	}{
		{"hostile", "0", []string{"Gateway shop/gw&#60;img src=x onerror=alert&#40;1&#41;&#62;&#64;&#8203;mallory",
			"svc &#92;x1b&#91;31m &#64;&#8203;mallory https&#58;&#8203;//evil&#46;example/x www&#8203;&#46;evil&#46;example &#35;&#8203;4711 &#124; &#91;link&#93;&#40;https&#58;&#8203;//evil&#46;example&#41; &#60;script&#62;"}},
		{"broken", "2", []string{"<pre>\n", "&lt;img src=x&gt;&#64;&#8203;mallory&#35;&#8203;4711.yaml:6: malformed YAML", "</pre>\n"}},
	} {
		t.Run(tt.paths, func(t *testing.T) {
			in := map[string]string{"version": "v" + releaseVersion, "download-url": serveRelease(t, false), "paths": tt.paths, "args": "--fail-on error"}
			r := runActionWith(t, actionOptions{inputs: in, dir: project})
			if r.outputs["run"]["exit-code"] != tt.code {
				t.Fatalf("exit-code %q, want %s:\n%s", r.outputs["run"]["exit-code"], tt.code, r.log)
			}
			for _, s := range tt.want {
				if !strings.Contains(r.summary, s) {
					t.Errorf("summary lacks %q:\n%s", s, r.summary)
				}
			}
			for _, s := range rawInSummary {
				if strings.Contains(r.summary, s) {
					t.Errorf("summary carries %q from the repository:\n%s", s, r.summary)
				}
			}
			checkOwnCommands(t, r.log)
		})
	}
}

// TestActionNoTokenInEnvironment: routeguard, which reads the repository,
// runs without the job's tokens: neither the runner's (ACTIONS_*), nor
// GITHUB_TOKEN or other token-, password- or secret-named variables the
// workflow exports, nor a variable whose value holds one of them, nor the
// github-token input, which only the comment step has (and uses).
func TestActionNoTokenInEnvironment(t *testing.T) {
	t.Parallel()
	dump := filepath.Join(t.TempDir(), "env")
	secrets := map[string]string{"ACTIONS_RUNTIME_TOKEN": "rt-secret-1", "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "oidc-secret-2",
		"ACTIONS_ID_TOKEN_REQUEST_URL": "http://127.0.0.1:9/oidc-secret-3", "GITHUB_TOKEN": "gh-secret-4", "DEPLOY_PASSWORD": "pw-secret-5",
		"ARGOCD_AUTH_TOKEN": "argocd-secret-6", "CHART_REPO_URL": "https://x:gh-secret-4@charts.example/"}
	f := newThread(githubAPI)
	srv := f.serve(t)
	r := githubDiff(t, srv, ghDiff{release: serveWrappedRelease(t, envProbe(dump)), runner: secrets})
	mustPost(t, r)
	data, err := os.ReadFile(dump)
	if err != nil || !strings.Contains(string(data), "GITHUB_REPOSITORY=octo/repo") {
		t.Fatalf("routeguard's environment was not recorded: %v\n%s", err, data)
	}
	for name, v := range secrets {
		if strings.Contains(string(data), v) {
			t.Errorf("routeguard's environment holds %s", name)
		}
	}
	if strings.Contains(string(data), "ghs_test-token") {
		t.Errorf("routeguard's environment holds the github-token input")
	}
	if _, reqs := f.snapshot(); len(writes(reqs)) != 1 || writes(reqs)[0].auth != "Bearer ghs_test-token" {
		t.Errorf("the comment step did not post with the token: %v", reqs)
	}
}

// TestActionPullRequestTarget: on pull_request_target (the base branch's
// workflow, a token that can write) routeguard runs only on the base
// revision the event names, unchanged; a checkout of another commit (the
// pull request's head) or with files added is refused before routeguard
// runs, unless allow-pull-request-target says otherwise.
func TestActionPullRequestTarget(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		sha    string // GITHUB_SHA; "" the checkout's HEAD
		add    bool   // a file not in the base revision
		allow  bool
		refuse string
	}{
		{name: "base revision"},
		{name: "head checked out", sha: "0123456789abcdef0123456789abcdef01234567", refuse: "and " /* HEAD */},
		{name: "files added", add: true, refuse: "the checkout has changed or untracked files"},
		{name: "head checked out, allowed", sha: "0123456789abcdef0123456789abcdef01234567", allow: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			project := newProject(t)
			head := strings.TrimSpace(gitOut(t, project, "rev-parse", "HEAD"))
			sha := tt.sha
			if sha == "" {
				sha = head
			}
			if tt.add {
				if err := os.WriteFile(filepath.Join(project, "examples", "pr.yaml"), []byte("kind: ConfigMap\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			in := map[string]string{"version": "v" + releaseVersion, "download-url": serveRelease(t, false),
				"paths": "examples/apps/routing/gateways", "args": "--fail-on error", "allow-pull-request-target": strconv.FormatBool(tt.allow)}
			r := runActionWith(t, actionOptions{inputs: in, dir: project,
				runner: map[string]string{"GITHUB_EVENT_NAME": "pull_request_target", "GITHUB_SHA": sha}})
			if tt.refuse == "" {
				if r.failed != "" || r.outputs["run"]["exit-code"] != "0" {
					t.Errorf("failed step %q, exit-code %q:\n%s", r.failed, r.outputs["run"]["exit-code"], r.log)
				}
				return
			}
			want := "::error title=routeguard::on pull_request_target routeguard runs only on the base revision the event names (" + sha + ")"
			if r.failed != "run" || r.outputs["run"]["exit-code"] != "" || !strings.Contains(r.log, want) || !strings.Contains(r.log, tt.refuse) {
				t.Errorf("failed step %q, exit-code %q, want a refusal saying %q:\n%s", r.failed, r.outputs["run"]["exit-code"], want, r.log)
			}
			if tt.sha != "" && !strings.Contains(r.log, "and "+head+" is checked out") {
				t.Errorf("the refusal does not name the checkout:\n%s", r.log)
			}
		})
	}
}

// TestActionSummaryCapped: an app whose findings fill more than a job
// summary may hold (2,000 routes naming missing backends with 200-character
// names) gets a summary under 1 MiB: the table keeps its first rows and
// says how many it left out, and where they all are.
func TestActionSummaryCapped(t *testing.T) {
	t.Parallel()
	project := newProject(t)
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: route-%04d\n  namespace: shop\nspec:\n  parentRefs:\n    - name: gw-%04d-%s\n  rules:\n    - backendRefs:\n        - name: svc-%04d-%s\n          port: 80\n",
			i, i, strings.Repeat("g", 200), i, strings.Repeat("s", 200))
	}
	if err := os.MkdirAll(filepath.Join(project, "many"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "many", "routes.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	in := map[string]string{"version": "v" + releaseVersion, "download-url": serveRelease(t, false), "paths": "many", "args": "--fail-on error"}
	r := runActionWith(t, actionOptions{inputs: in, dir: project})
	if r.outputs["run"]["exit-code"] != "0" {
		t.Fatalf("exit-code %q:\n%s", r.outputs["run"]["exit-code"], r.log)
	}
	if len(r.summary) > 1<<20 {
		t.Errorf("summary: %d bytes, over 1 MiB", len(r.summary))
	}
	lines := strings.Split(strings.TrimRight(r.summary, "\n"), "\n")
	m := leftOutRE.FindStringSubmatch(lines[len(lines)-1])
	if m == nil || m[5] != "a job summary holds at most 1 MiB; code scanning and the SARIF report (output sarif-file) have every finding" {
		t.Fatalf("last line %q, want the left-out line", lines[len(lines)-1])
	}
	rows := strings.Count(r.summary, "\n| warning | RG0001 | <code>many/routes&#46;yaml&#58;")
	left, _ := strconv.Atoi(m[1])
	if !strings.Contains(r.summary, "\n4000 findings in total.\n") || rows == 0 || rows+left != 4000 {
		t.Errorf("%d rows kept and %d lines left out, want 4000 findings in all:\n%s", rows, left, r.summary[:2000])
	}
}
