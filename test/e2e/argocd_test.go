package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var infosOnly = regexp.MustCompile(`\n0 errors, 0 warnings, [0-9]+ infos$`)

// The bundled Argo CD example: every Application renders, the cluster is
// analyzed as one (the team routes resolve the platform Gateway), no
// warning or error is reported (infos of Istio's analyzers, when
// routeguard-istio is installed beside the binary, and of validation may
// be), and the summary says what was
// checked.
func TestArgoCDAnalyzeExample(t *testing.T) {
	r := routeguard(t, nil, "argocd", "analyze", "examples/argocd", "--fail-on", "warning")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	out := strings.TrimSpace(r.stdout)
	if out != "no findings" && !infosOnly.MatchString(out) {
		t.Errorf("stdout = %q, want no findings (or infos only)", r.stdout)
	}
	if !strings.Contains(r.stderr, "13 Applications (13 rendered, 0 partly rendered, 0 skipped, 0 failed), 1 ApplicationSets") {
		t.Errorf("summary missing from stderr:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, " 0 routing objects checked") {
		t.Errorf("nothing checked:\n%s", r.stderr)
	}
}

// build -o json lists each Application with its cluster and objects, the
// same bytes on every run; the ApplicationSet's team apps are among them.
func TestArgoCDBuildExampleJSON(t *testing.T) {
	a := routeguard(t, nil, "argocd", "build", "examples/argocd", "-o", "json")
	b := routeguard(t, nil, "argocd", "build", "examples/argocd", "-o", "json")
	if a.code != 0 {
		t.Fatalf("exit %d: %s", a.code, a.stderr)
	}
	if a.stdout != b.stdout {
		t.Error("two runs printed different bytes")
	}
	var apps []struct {
		Application string           `json:"application"`
		Cluster     string           `json:"cluster"`
		Objects     []map[string]any `json:"objects"`
	}
	if err := json.Unmarshal([]byte(a.stdout), &apps); err != nil {
		t.Fatalf("invalid JSON: %v", err)
	}
	objects := map[string]int{}
	for _, x := range apps {
		objects[x.Application] = len(x.Objects)
		if x.Cluster != "https://kubernetes.default.svc" {
			t.Errorf("%s: cluster %q", x.Application, x.Cluster)
		}
	}
	for _, k := range []string{"argocd/team-payments", "argocd/team-storefront", "argocd/routing-gateways", "argocd/root"} {
		if objects[k] == 0 {
			t.Errorf("Application %s rendered no objects (have %v)", k, objects)
		}
	}
}

// A path that does not exist is bad input: exit 2, nothing on stdout.
func TestArgoCDBadPath(t *testing.T) {
	r := routeguard(t, nil, "argocd", "analyze", "examples/argocd/nope")
	if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "nope") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, the path named", r.code, r.stdout, r.stderr)
	}
}

// RG0009 names the Application that does not render once, with its file
// and line and why (regression: it was "Application argocd/bad
// (Application argocd/bad)").
func TestArgoCDAppNotRendered(t *testing.T) {
	root := t.TempDir()
	app := `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: bad, namespace: argocd}
spec:
  project: default
  source: {repoURL: https://git.example.com/x.git, targetRevision: main, path: nope}
  destination: {server: https://kubernetes.default.svc, namespace: shop}
`
	if err := os.WriteFile(filepath.Join(root, "bad.yaml"), []byte(app), 0o644); err != nil {
		t.Fatal(err)
	}
	r := routeguard(t, nil, "argocd", "analyze", root, "--repo-root", root, "--repo-url", "https://git.example.com/x.git")
	var line string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.Contains(l, "RG0009") {
			line = l
		}
	}
	if r.code != 1 || !strings.Contains(line, `bad.yaml:1: error RG0009 Application argocd/bad: does not render: source path "nope"`) {
		t.Fatalf("exit %d, RG0009 line %q\nstdout:\n%s\nstderr:\n%s", r.code, line, r.stdout, r.stderr)
	}
	if n := strings.Count(line, "argocd/bad"); n != 1 {
		t.Errorf("RG0009 names the Application %d times: %q", n, line)
	}
}
