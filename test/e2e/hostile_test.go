package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/routeguard/routeguard/test/harness"
)

// The attack suite (docs/security.md): repositories built as an attacker
// would, run through the binary. Every case plants a marker where the
// repository must not reach (a file outside it, the process environment,
// .git, a loopback server, a file a program would create) and asserts that
// the marker never shows up, that the run fails with exit code 2 and a
// message naming the input, and that nothing was written or contacted.

const secretMarker = "TOPSECRET-7f3a9c"

// hostileRepo writes files (a value starting with "->" is a symlink to
// the rest) into a fresh repository under a fresh parent directory, next
// to an outside/ directory holding the marker.
func hostileRepo(t *testing.T, files map[string]string) (repo, outside string) {
	t.Helper()
	parent := t.TempDir()
	outside = filepath.Join(parent, "outside")
	repo = filepath.Join(parent, "repo")
	for _, d := range []string{outside, filepath.Join(repo, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, content string) {
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "secret.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: stolen, namespace: default}\ndata: {token: "+secretMarker+"}\n")
	write(filepath.Join(outside, "secret.txt"), secretMarker+"\n")
	write(filepath.Join(repo, ".git", "config"), "[remote \"origin\"]\n\turl = https://x-access-token:"+secretMarker+"@example.invalid/repo\n")
	for name, content := range files {
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			target = strings.ReplaceAll(target, "$OUTSIDE", outside)
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		write(p, content)
	}
	return repo, outside
}

// refused asserts a run that must fail: exit 2, nothing on stdout, the
// marker nowhere, and the message naming want.
func refused(t *testing.T, r harness.Result, want string) {
	t.Helper()
	if strings.Contains(r.Stdout+r.Stderr, secretMarker) {
		t.Fatalf("the marker escaped:\nstdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	}
	if r.Code != 2 || r.Stdout != "" {
		t.Fatalf("exit %d, stdout %q; want exit 2 and nothing on stdout (stderr: %s)", r.Code, r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stderr, want) {
		t.Fatalf("stderr %q does not name %q", r.Stderr, want)
	}
}

const chartYAML = "apiVersion: v2\nname: app\nversion: 0.1.0\n"

func TestHostileReadsOutside(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		args  []string
		want  string
	}{
		{"chart template symlinked outside", map[string]string{
			"app/Chart.yaml":            chartYAML,
			"app/templates/stolen.yaml": "->$OUTSIDE/secret.yaml",
		}, []string{"render", "app"}, "stolen.yaml"},
		{"chart symlinks to an in-repository directory whose symlink leads outside", map[string]string{
			"app/Chart.yaml":        chartYAML,
			"app/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {v: {{ .Files.Get \"files/s/secret.txt\" | quote }}}\n",
			"app/files":             "->../inner",
			"inner/s":               "->$OUTSIDE",
		}, []string{"render", "app"}, "app/files/s"},
		{"chart template is /proc/self/environ", map[string]string{
			"app/Chart.yaml":         chartYAML,
			"app/templates/env.yaml": "->/proc/self/environ",
		}, []string{"render", "app"}, "env.yaml"},
		{"kustomize resource outside the repository", map[string]string{
			"app/kustomization.yaml": "resources: [../../outside/secret.yaml]\n",
		}, []string{"render", "app"}, "outside the repository root"},
		{"kustomize resource symlinked outside", map[string]string{
			"app/kustomization.yaml": "resources: [cm.yaml]\n",
			"app/cm.yaml":            "->$OUTSIDE/secret.yaml",
		}, []string{"analyze", "app"}, "cm.yaml"},
		{"kustomize reads .git", map[string]string{
			"app/kustomization.yaml": "configMapGenerator:\n  - name: git\n    files: [../.git/config]\n",
		}, []string{"render", "app"}, ".git"},
		{"helmGlobals.chartHome absolute", map[string]string{
			"app/kustomization.yaml": "helmGlobals: {chartHome: $OUTSIDE}\nhelmCharts:\n  - name: chart\n    releaseName: x\n",
		}, []string{"render", "app"}, "chartHome"},
		{"plain directory with a symlinked manifest", map[string]string{
			"app/stolen.yaml": "->$OUTSIDE/secret.yaml",
		}, []string{"render", "app"}, "stolen.yaml"},
		{".routeguard.yaml symlinked outside", map[string]string{
			"app/cm.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\n",
			".routeguard.yaml": "->$OUTSIDE/secret.yaml",
		}, []string{"analyze", "app"}, ".routeguard.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo, outside := hostileRepo(t, tc.files)
			for k, v := range tc.files {
				if strings.Contains(v, "$OUTSIDE") && !strings.HasPrefix(v, "->") {
					if err := os.WriteFile(filepath.Join(repo, k), []byte(strings.ReplaceAll(v, "$OUTSIDE", outside)), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			r := harness.Run(t, harness.Options{Dir: repo, Env: []string{"GIT_PASSWORD=" + secretMarker}}, tc.args...)
			refused(t, r, tc.want)
		})
	}
}

// A chart placed outside for helmGlobals.chartHome: it must never render.
func TestHostileChartHomeOutsideNeverRenders(t *testing.T) {
	repo, outside := hostileRepo(t, map[string]string{
		"app/kustomization.yaml": "helmCharts:\n  - name: chart\n    releaseName: x\n",
	})
	chart := filepath.Join(outside, "chart")
	for p, c := range map[string]string{"Chart.yaml": "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
		"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {v: " + secretMarker + "}\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(chart, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(chart, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, "app", "kustomization.yaml"),
		[]byte("helmGlobals: {chartHome: "+outside+"}\nhelmCharts:\n  - name: chart\n    releaseName: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	refused(t, harness.Run(t, harness.Options{Dir: repo}, "render", "app"), "chartHome")
}

// Without --allow-network nothing is fetched: a loopback server counts
// the requests that every remote form would make.
func TestHostileNoNetworkWithoutAllowNetwork(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fetched}\n"))
	}))
	defer srv.Close()
	u := srv.URL
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string // what the message names (default --allow-network)
	}{
		{"kustomize resources URL", map[string]string{"app/kustomization.yaml": "resources:\n  - " + u + "/r.yaml\n"}, ""},
		{"kustomize git URL", map[string]string{"app/kustomization.yaml": "resources:\n  - " + u + "/org/repo.git//app?ref=main\n"}, ""},
		{"kustomize transformers URL", map[string]string{"app/kustomization.yaml": "transformers:\n  - " + u + "/t.yaml\n"}, ""},
		{"kustomize generators URL", map[string]string{"app/kustomization.yaml": "generators:\n  - " + u + "/g.yaml\n"}, ""},
		{"kustomize openapi path URL", map[string]string{"app/kustomization.yaml": "openapi: {path: " + u + "/schema.json}\n"}, ""},
		{"helmCharts repo", map[string]string{"app/kustomization.yaml": "helmCharts:\n  - name: web\n    repo: " + u + "/charts\n    version: 1.0.0\n    releaseName: web\n"}, ""},
		{"chart dependency repository", map[string]string{
			"app/Chart.yaml":        "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n  - name: dep\n    version: 1.0.0\n    repository: " + u + "/charts\n",
			"app/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
		}, "charts/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == "" {
				want = "allow-network"
			}
			repo, _ := hostileRepo(t, tc.files)
			before := hits.Load()
			r := harness.Run(t, harness.Options{Dir: repo}, "render", "app")
			if hits.Load() != before {
				t.Fatalf("routeguard made %d request(s) without --allow-network (exit %d, stderr %s)", hits.Load()-before, r.Code, r.Stderr)
			}
			if r.Code != 2 || r.Stdout != "" || !strings.Contains(r.Stderr, want) {
				t.Fatalf("exit %d stdout %q stderr %q; want exit 2 naming %s", r.Code, r.Stdout, r.Stderr, want)
			}
		})
	}
}

// Nothing from the repository runs: Kustomize exec and container
// functions, and a program a plugin entry would name.
func TestHostileRunsNoCode(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
	}{
		{"exec KRM function", map[string]string{
			"app/kustomization.yaml": "resources: [cm.yaml]\ntransformers: [fn.yaml]\n",
			"app/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
			"app/fn.yaml": "apiVersion: example.com/v1\nkind: Evil\nmetadata:\n  name: evil\n  annotations:\n" +
				"    config.kubernetes.io/function: |\n      exec:\n        path: ./evil.sh\n",
			"app/evil.sh": "#!/bin/sh\ntouch \"$(dirname \"$0\")/../../pwned\"\ncat\n",
		}},
		{"container KRM function", map[string]string{
			"app/kustomization.yaml": "resources: [cm.yaml]\ntransformers: [fn.yaml]\n",
			"app/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
			"app/fn.yaml": "apiVersion: example.com/v1\nkind: Evil\nmetadata:\n  name: evil\n  annotations:\n" +
				"    config.kubernetes.io/function: |\n      container:\n        image: example.invalid/evil:1\n",
		}},
		{"plugin binary named by the repository", map[string]string{
			"app/cm.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\n",
			".routeguard.yaml": "plugins:\n  items:\n    - name: evil\n      path: app/evil.sh\n      insecureSkipVerify: true\n",
			"app/evil.sh":      "#!/bin/sh\ntouch \"$(dirname \"$0\")/../../pwned\"\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo, _ := hostileRepo(t, tc.files)
			if err := os.Chmod(filepath.Join(repo, "app", "evil.sh"), 0o755); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			args := []string{"render", "app"}
			if strings.Contains(tc.name, "plugin") {
				args = []string{"analyze", "app"}
			}
			r := harness.Run(t, harness.Options{Dir: repo}, args...)
			if _, err := os.Stat(filepath.Join(filepath.Dir(repo), "pwned")); err == nil {
				t.Fatalf("the repository's program ran (exit %d, stderr %s)", r.Code, r.Stderr)
			}
			if r.Code != 2 || r.Stdout != "" {
				t.Fatalf("exit %d stdout %q stderr %q; want exit 2", r.Code, r.Stdout, r.Stderr)
			}
		})
	}
}

// A helmCharts name with ../ must not make Kustomize write outside.
func TestHostileWritesNothingOutside(t *testing.T) {
	repo, _ := hostileRepo(t, map[string]string{
		"app/kustomization.yaml":             "helmCharts:\n  - name: ../../../escape\n    releaseName: x\n    valuesInline: {a: 1}\n",
		"app/charts/escape/Chart.yaml":       "apiVersion: v2\nname: escape\nversion: 0.1.0\n",
		"app/charts/escape/templates/c.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
	})
	parent := filepath.Dir(repo)
	before, _ := filepath.Glob(filepath.Join(parent, "*"))
	r := harness.Run(t, harness.Options{Dir: repo}, "render", "app")
	after, _ := filepath.Glob(filepath.Join(parent, "*"))
	if len(after) != len(before) {
		t.Fatalf("files appeared next to the repository: %v -> %v", before, after)
	}
	refused(t, r, "name")
}

// Inputs built to exhaust memory fail fast with a clear message.
func TestHostileResourceExhaustion(t *testing.T) {
	var laughs strings.Builder
	laughs.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol}\ndata:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n")
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		laughs.WriteString("  " + n + ": &" + n + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n")
		prev = n
	}
	repo, _ := hostileRepo(t, map[string]string{"app/lol.yaml": laughs.String()})
	refused(t, harness.Run(t, harness.Options{Dir: repo}, "render", "app"), "lol.yaml")

	big, _ := hostileRepo(t, map[string]string{"app/big.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  a: " + strings.Repeat("x", 2<<20) + "\n"})
	refused(t, harness.Run(t, harness.Options{Dir: big}, "render", "--max-file-size", "1", "app"), "big.yaml")
}

// Text from the repository reaches the terminal escaped: an object name
// holding an ANSI sequence or a carriage return cannot rewrite the CI log.
func TestHostileOutputEscaped(t *testing.T) {
	repo, _ := hostileRepo(t, map[string]string{
		"app/route.yaml": "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n" +
			"metadata: {name: \"web\\e[2J\\rok\", namespace: shop}\nspec: {}\n",
	})
	r := harness.Run(t, harness.Options{Dir: repo}, "analyze", "app")
	out := r.Stdout + r.Stderr
	if strings.ContainsAny(out, "\x1b\r") {
		t.Fatalf("raw control characters reached the output (exit %d): %q", r.Code, out)
	}
	if !strings.Contains(out, `web\x1b[2J\rok`) {
		t.Fatalf("the object name is not shown escaped (exit %d): %q", r.Code, out)
	}
}
