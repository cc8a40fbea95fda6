package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/test/harness"
)

// TestUsageErrors: a wrong command line gets the reason (or the usage) on
// stderr, exit 2 and nothing on stdout, for every command group.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "routeguard [command]"},
		{[]string{"cmp"}, "routeguard cmp [command]"},
		{[]string{"flux"}, "routeguard flux [command]"},
		{[]string{"health"}, "routeguard health [command]"},
		{[]string{"notifications"}, "routeguard notifications [command]"},
		{[]string{"completion"}, "routeguard completion [command]"},
		{[]string{"completion", "tcsh"}, `unknown command "tcsh" for "routeguard completion"`},
		{[]string{"bogus"}, `unknown command "bogus" for "routeguard"`},
		{[]string{"cmp", "bogus"}, `unknown command "bogus" for "routeguard cmp"`},
		{[]string{"analyze", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"analyze", "--fail-on", "sometimes"}, "must be error, warning or never"},
		{[]string{"render", "a", "b"}, "accepts at most 1 arg(s), received 2"},
		{[]string{"cmp", "generate", "extra"}, "takes no arguments"},
		{[]string{"version", "extra"}, "takes no arguments"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := routeguard(t, nil, tc.args...)
			if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2, empty stdout, stderr with %q", r.code, r.stdout, r.stderr, tc.want)
			}
		})
	}
}

func TestHelpVersionCompletion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--help"}, "Available Commands:"},
		{[]string{"analyze", "--help"}, "report format: github, gitlab, json, junit, markdown, sarif, text"},
		{[]string{"--version"}, "routeguard "},
		{[]string{"version"}, "routeguard "},
		{[]string{"completion", "bash"}, "bash completion"},
		{[]string{"completion", "zsh"}, "#compdef routeguard"},
		{[]string{"completion", "fish"}, "complete -c routeguard"},
		{[]string{"completion", "powershell"}, "Register-ArgumentCompleter"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := routeguard(t, nil, tc.args...)
			if r.code != 0 || !strings.Contains(r.stdout, tc.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 0 and %q on stdout", r.code, r.stdout, r.stderr, tc.want)
			}
		})
	}
	v, ver := routeguard(t, nil, "--version"), routeguard(t, nil, "version")
	if v.stdout != ver.stdout {
		t.Fatalf("--version %q and version %q differ", v.stdout, ver.stdout)
	}
}

// The helm shim answers only the calls a render prepared: a variable in the
// environment no longer turns routeguard into it.
func TestHelmShimNotFromEnvironment(t *testing.T) {
	r := routeguard(t, []string{"ROUTEGUARD_HELM_SHIM=1"}, "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "routeguard ") {
		t.Fatalf("exit %d, stdout %q: ROUTEGUARD_HELM_SHIM changed what routeguard does", r.code, r.stdout)
	}
}

func writeRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A context app inflated by Kustomize helmCharts, for the commands that used
// to render context paths differently (flux build without the helm shim,
// postrender not at all).
var contextRepo = map[string]string{
	".routeguard.yaml":               "contextPaths: [backend]\n",
	"backend/kustomization.yaml":     "helmCharts:\n  - name: web\n    releaseName: web\n    namespace: shop\n",
	"backend/charts/web/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 0.1.0\n",
	"backend/charts/web/values.yaml": "{}\n",
	"backend/charts/web/templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: {{ .Release.Namespace }}\n" +
		"spec:\n  ports:\n    - port: 80\n",
}

const contextRoute = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: shop}
spec:
  rules:
    - backendRefs:
        - {name: web, port: 80}
`

func TestContextPathsInEveryCommand(t *testing.T) {
	files := map[string]string{
		"apps/route.yaml": contextRoute,
		"clusters/prod/apps.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\n" +
			"spec:\n  interval: 10m\n  path: ./apps\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
	}
	for k, v := range contextRepo {
		files[k] = v
	}
	repo := writeRepo(t, files)
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
	}{
		{"analyze", []string{"analyze", "apps"}, ""},
		{"flux build", []string{"flux", "build", "--all", "clusters/prod"}, ""},
		{"postrender", []string{"postrender"}, contextRoute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := harness.Run(t, harness.Options{Dir: repo, Stdin: strings.NewReader(tc.stdin)}, tc.args...)
			out := r.Stdout + r.Stderr
			if r.Code == 2 || strings.Contains(out, "RG1101") || strings.Contains(out, "RG0001") {
				t.Fatalf("exit %d: the context path's Service was not seen:\n%s", r.Code, out)
			}
		})
	}
	// Without the context path the reference cannot be checked (nothing
	// renders Services in its namespace): the commands above did look.
	if err := os.WriteFile(filepath.Join(repo, ".routeguard.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := harness.Run(t, harness.Options{Dir: repo, Stdin: strings.NewReader(contextRoute)}, "postrender")
	if r.Code != 1 || !strings.Contains(r.Stderr, "warning RG0001") || r.Stdout != "" {
		t.Fatalf("without the context path: exit %d, stdout %q, stderr %q; want exit 1 and RG0001", r.Code, r.Stdout, r.Stderr)
	}
}
