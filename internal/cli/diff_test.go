package cli

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

const diffRoute = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: public, namespace: shop}
spec:
  gatewayClassName: envoy
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: shop}
spec:
  parentRefs: [{name: public}]
  rules:
  - backendRefs:
    - {name: blue, port: 80, weight: 90}
    - {name: green, port: 80, weight: 10}
---
apiVersion: v1
kind: Service
metadata: {name: blue, namespace: shop}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: green, namespace: shop}
spec: {ports: [{port: 80}]}
`

// diffRepo commits app/routes.yaml twice (base, then head) with go-git.
func diffRepo(t *testing.T, base, head string) string {
	t.Helper()
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := r.Worktree()
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000, 0).UTC()}
	for _, content := range []string{base, head} {
		os.MkdirAll(filepath.Join(dir, "app"), 0o755)
		if err := os.WriteFile(filepath.Join(dir, "app", "routes.yaml"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := wt.Commit("c", &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runIn(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, Environ: func() []string { return nil },
		Getwd: func() (string, error) { return dir, nil }}
	code = Execute(context.Background(), args, env)
	return out.String(), errb.String(), code
}

func TestDiffExitCodes(t *testing.T) {
	weights := strings.Replace(strings.Replace(diffRoute, "weight: 90", "weight: 50", 1), "weight: 10", "weight: 50", 1)
	typo := strings.Replace(diffRoute, "{name: green, port: 80", "{name: gren, port: 80", 1)
	tests := []struct {
		name       string
		head       string
		args       []string
		code       int
		stdoutHas  string
		stderrHas  string
		emptyStdou bool
	}{
		{name: "no change", head: diffRoute, code: 0, stdoutHas: "no routing change"},
		{name: "weights changed", head: weights, code: 1, stdoutHas: "w=90, Service shop/green:80 w=10 → Service shop/blue:80 w=50"},
		{name: "fail-on-new ignores routing-only changes", head: weights, args: []string{"--fail-on-new", "error"}, code: 0, stdoutHas: "1 route entries changed"},
		{name: "fail-on-new fails on an introduced error", head: typo, args: []string{"--fail-on-new", "error"}, code: 1, stdoutHas: "RG1101"},
		{name: "markdown", head: weights, args: []string{"-o", "markdown"}, code: 1, stdoutHas: "<!-- routeguard-diff -->"},
		{name: "json", head: weights, args: []string{"-o", "json"}, code: 1, stdoutHas: `"routingChanged": true`},
		{name: "unknown base", head: weights, args: []string{"--base", "nope"}, code: 2, stderrHas: `revision "nope" names no commit`, emptyStdou: true},
		{name: "bad output", head: weights, args: []string{"-o", "html"}, code: 2, stderrHas: "--output must be", emptyStdou: true},
		{name: "bad fail-on-new", head: weights, args: []string{"--fail-on-new", "sometimes"}, code: 2, emptyStdou: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := diffRepo(t, diffRoute, tt.head)
			args := append([]string{"diff", "--base", "HEAD~1", "--head", "HEAD"}, tt.args...)
			args = append(args, "app")
			stdout, stderr, code := runIn(t, dir, args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			if !strings.Contains(stdout, tt.stdoutHas) {
				t.Errorf("stdout lacks %q:\n%s", tt.stdoutHas, stdout)
			}
			if !strings.Contains(stderr, tt.stderrHas) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderrHas, stderr)
			}
			if tt.emptyStdou && stdout != "" {
				t.Errorf("stdout not empty on error:\n%s", stdout)
			}
		})
	}
}

func TestDiffOutsideGit(t *testing.T) {
	stdout, stderr, code := runIn(t, t.TempDir(), "diff")
	if code != 2 || stdout != "" || !strings.Contains(stderr, "not in a git repository") {
		t.Errorf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
}

func TestDiffSVGAndMap(t *testing.T) {
	weights := strings.Replace(diffRoute, "weight: 90", "weight: 70", 1)
	dir := diffRepo(t, diffRoute, weights)
	svg := filepath.Join(t.TempDir(), "map.svg")
	if _, stderr, code := runIn(t, dir, "diff", "--base", "HEAD~1", "--svg", svg, "app"); code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(data, new(struct{})); err != nil || !strings.Contains(string(data), "w 90 → w 70") {
		t.Errorf("svg (err %v) lacks the weight change:\n%s", err, data)
	}
	for format, want := range map[string]string{
		"text":    "Gateway shop/public listener http  *     PathPrefix /  HTTPRoute shop/web  Service shop/blue:80 w=70, Service shop/green:80 w=10",
		"mermaid": `n0[/"Gateway shop/public listener http"/]`,
		"json":    `"parent": "Gateway shop/public listener http"`,
		"svg":     "<svg ",
	} {
		stdout, stderr, code := runIn(t, dir, "map", "-o", format, filepath.Join(dir, "app"))
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("map -o %s: exit %d, stdout lacks %q:\n%s\n%s", format, code, want, stdout, stderr)
		}
	}
}
