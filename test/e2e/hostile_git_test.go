package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/routeguard/routeguard/test/harness"
)

// checkoutConfig is .git/config as actions/checkout leaves it: the job's
// token in an extraheader.
const checkoutConfig = "[core]\n\trepositoryformatversion = 0\n[remote \"origin\"]\n\turl = https://github.com/org/repo\n" +
	"[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic " + secretMarker + "\n"

// gitRepo is hostileRepo with .git/config holding the token as
// actions/checkout writes it.
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	repo, _ := hostileRepo(t, files)
	if err := os.WriteFile(filepath.Join(repo, ".git", "config"), []byte(checkoutConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	return repo
}

// .git is unreachable through any symlink, from every renderer: the
// token never appears, the run fails naming the link.
func TestHostileGitThroughSymlinks(t *testing.T) {
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		args  []string
		want  string
	}{
		{".Files.Get of a link to .git/config", map[string]string{
			"app/Chart.yaml":        chartYAML,
			"app/files/cfg":         "->../../.git/config",
			"app/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {v: {{ .Files.Get \"files/cfg\" | quote }}}\n",
		}, []string{"render", "app"}, "app/files/cfg: a symlink on the way leads to .git/config"},
		{".Files.Glob over a link to .git", map[string]string{
			"app/Chart.yaml": chartYAML,
			"app/files":      "->../.git",
			"app/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n" +
				"{{ range $p, $b := .Files.Glob \"files/*\" }}  {{ base $p }}: {{ toString $b | quote }}\n{{ end }}",
		}, []string{"render", "app"}, "app/files: a symlink on the way leads to .git"},
		{"chart template linked to .git/config", map[string]string{
			"app/Chart.yaml":       chartYAML,
			"app/templates/x.yaml": "->../../.git/config",
		}, []string{"render", "app"}, "app/templates/x.yaml: a symlink on the way leads to .git/config"},
		{"Kustomize configMapGenerator", map[string]string{
			"app/kustomization.yaml": "configMapGenerator:\n  - name: g\n    files: [cfg]\n",
			"app/cfg":                "->../.git/config",
		}, []string{"render", "app"}, "app/cfg: a symlink on the way leads to .git/config"},
		{"Kustomize resource", map[string]string{
			"app/kustomization.yaml": "resources: [cm.yaml, git.yaml]\n",
			"app/cm.yaml":            cm,
			"app/git.yaml":           "->../.git/config",
		}, []string{"render", "app"}, "git.yaml"},
		{"plain directory", map[string]string{
			"app/cm.yaml":  cm,
			"app/git.yaml": "->../.git/config",
		}, []string{"render", "app"}, "app/git.yaml: a symlink on the way leads to .git/config"},
		{"ApplicationSet git files generator", map[string]string{
			"argocd/set.yaml": `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: set, namespace: argocd}
spec:
  goTemplate: true
  generators:
    - git:
        repoURL: https://github.com/org/repo
        revision: HEAD
        files: [{path: "config/*.json"}]
  template:
    metadata: {name: '{{ .name }}'}
    spec:
      project: default
      source: {repoURL: https://github.com/org/repo, path: app}
      destination: {server: https://kubernetes.default.svc, namespace: x}
`,
			"config/a.json": "->../.git/config",
			"app/cm.yaml":   cm,
		}, []string{"argocd", "build", "--repo-url", "https://github.com/org/repo", "."}, "config/a.json: a symlink on the way leads to .git/config"},
		{"Argo CD Helm values file", map[string]string{
			"argocd/app.yaml": `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: web, namespace: argocd}
spec:
  project: default
  source:
    repoURL: https://github.com/org/repo
    path: app
    helm: {valueFiles: [values-git.yaml]}
  destination: {server: https://kubernetes.default.svc, namespace: x}
`,
			"app/Chart.yaml":        chartYAML,
			"app/values-git.yaml":   "->../.git/config",
			"app/templates/cm.yaml": cm,
		}, []string{"argocd", "build", "--repo-url", "https://github.com/org/repo", "argocd/app.yaml"}, "app/values-git.yaml: a symlink on the way leads to .git/config"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := gitRepo(t, tc.files)
			r := harness.Run(t, harness.Options{Dir: repo}, tc.args...)
			if strings.Contains(r.Stdout+r.Stderr, secretMarker) {
				t.Fatalf("the token escaped (exit %d):\nstdout: %.2000s\nstderr: %.2000s", r.Code, r.Stdout, r.Stderr)
			}
			if r.Code != 2 || !strings.Contains(r.Stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 naming %q", r.Code, r.Stderr, tc.want)
			}
		})
	}
}

// Flux builds from a copy without symlinks: a HelmRelease's chart whose
// file links to .git/config renders without it.
func TestHostileGitThroughSymlinksFlux(t *testing.T) {
	repo := gitRepo(t, map[string]string{
		"clusters/prod/release.yaml": `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: web, namespace: default}
spec:
  interval: 10m
  chart:
    spec:
      chart: ./charts/web
      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}
`,
		"charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"charts/web/files/cfg":  "->../../../.git/config",
		"charts/web/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n" +
			"data: {v: {{ .Files.Get \"files/cfg\" | quote }}, g: {{ range $p, $_ := .Files.Glob \"**\" }}{{ $p }} {{ end }}}\n",
	})
	r := harness.Run(t, harness.Options{Dir: repo}, "flux", "build", "clusters/prod/release.yaml")
	if strings.Contains(r.Stdout+r.Stderr, secretMarker) || strings.Contains(r.Stdout, "files/cfg") {
		t.Fatalf("the token or the link reached the build (exit %d):\nstdout: %.2000s\nstderr: %.2000s", r.Code, r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stdout, "name: x") {
		t.Fatalf("the chart did not render (exit %d): %s", r.Code, r.Stderr)
	}
}

// diff reads the base revision from git objects (a link into .git is not
// written) and the work tree through the confined root (refused: the app
// does not render at head, an RG0009 finding).
func TestHostileGitThroughSymlinksDiff(t *testing.T) {
	repo := gitRepo(t, nil)
	if err := os.RemoveAll(filepath.Join(repo, ".git")); err != nil {
		t.Fatal(err)
	}
	r, err := git.PlainInit(repo, false)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"app/Chart.yaml":        chartYAML,
		"app/files/cfg":         "->../../.git/config",
		"app/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {v: {{ .Files.Get \"files/cfg\" | quote }}}\n",
	}
	for name, content := range files {
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			err = os.Symlink(target, p)
		} else {
			err = os.WriteFile(p, []byte(content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "a", Email: "a@example.invalid", When: time.Unix(0, 0)}
	if _, err := wt.Commit("base", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(repo, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".git", "config"), append(cfg, []byte("[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic "+secretMarker+"\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	res := harness.Run(t, harness.Options{Dir: repo}, "diff", "--base", "HEAD", "app")
	if strings.Contains(res.Stdout+res.Stderr, secretMarker) {
		t.Fatalf("the token escaped (exit %d):\nstdout: %.2000s\nstderr: %.2000s", res.Code, res.Stdout, res.Stderr)
	}
	if !strings.Contains(res.Stdout, "RG0009") || !strings.Contains(res.Stdout, "app/files/cfg: a symlink on the way leads to .git/config") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want the head's render refused naming the link", res.Code, res.Stdout, res.Stderr)
	}
}
