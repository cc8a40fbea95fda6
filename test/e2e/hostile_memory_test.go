package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/routeguard/routeguard/test/harness"
)

// Inputs built to exhaust memory (docs/security.md, guarantee 6) end with
// routeguard's own message naming what amplified, exit code 2 and the
// private temporary directory removed, never with the Go runtime's
// "fatal error: out of memory" and its goroutine dump. Each run gets
// --max-memory 256 and a 3 GiB address space, as a container's limit
// would impose: past it an allocation fails and the runtime crashes.

const addressSpaceMiB = 3 << 10

// exhausted runs routeguard with a private TMPDIR and checks the clean
// refusal: no runtime crash, exit code code, the message naming each of
// want, nothing left in TMPDIR.
func exhausted(t *testing.T, dir string, code int, want []string, args ...string) harness.Result {
	t.Helper()
	tmp := t.TempDir()
	r := harness.Run(t, harness.Options{Dir: dir, Env: []string{"TMPDIR=" + tmp}, AddressSpaceMiB: addressSpaceMiB},
		append([]string{"--max-memory", "256"}, args...)...)
	checkClean(t, r, tmp, code, want)
	return r
}

func checkClean(t *testing.T, r harness.Result, tmp string, code int, want []string) {
	t.Helper()
	head := r.Stderr
	if len(head) > 2000 {
		head = head[:2000] + "…"
	}
	if strings.Contains(r.Stderr, "fatal error") || strings.Contains(r.Stderr, "goroutine ") {
		t.Fatalf("the Go runtime crashed (exit %d): %s", r.Code, head)
	}
	if r.Code != code {
		t.Fatalf("exit %d, want %d; stderr: %s", r.Code, code, head)
	}
	for _, w := range want {
		if !strings.Contains(r.Stderr+r.Stdout, w) {
			t.Fatalf("the output does not name %q: %s", w, head)
		}
	}
	if code == 2 && r.Stdout != "" {
		t.Fatalf("a refused run printed on stdout: %.300s", r.Stdout)
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Fatalf("the run left %d entries in TMPDIR (%s, ...)", len(left), left[0].Name())
	}
}

func appSetRepo(t *testing.T, name, tmpl string) string {
	t.Helper()
	repo, _ := hostileRepo(t, map[string]string{"argocd/" + name + ".yaml": `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: ` + name + `, namespace: argocd}
spec:
  goTemplate: true
  generators:
    - list: {elements: [{n: a}]}
  template:
    metadata:
      name: '` + tmpl + `'
    spec:
      project: default
      source: {repoURL: https://git.example.invalid/repo.git, path: apps}
      destination: {server: https://kubernetes.default.svc, namespace: x}
`})
	return repo
}

// An ApplicationSet's Go template cannot ask Sprig for gigabytes.
func TestHostileApplicationSetTemplateBounds(t *testing.T) {
	for _, tc := range []struct{ name, tmpl, want string }{
		{"repeat", `{{ repeat 6000000000 "a" }}`, "repeat would make 5.6 GiB"},
		{"randAlphaNum", `{{ randAlphaNum 6000000000 }}`, "randAlphaNum would make"},
		{"indent", `{{ indent 6000000000 "a" }}`, "indent would make"},
		{"until", `{{ range until 6000000000 }}{{ end }}`, "until would make"},
		{"string doubling", `{{ $s := "ab" }}{{ range until 64 }}{{ $s = print $s $s }}{{ end }}`, "print would make"},
		{"nested loops", `{{ range until 100000 }}{{ range until 100000 }}xxxxxxxx{{ end }}{{ end }}`, "passed the 64 MiB limit of one template's output"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := appSetRepo(t, "bomb", tc.tmpl)
			exhausted(t, repo, 2, []string{tc.want, "argocd/bomb.yaml", "ApplicationSet argocd/bomb"}, "argocd", "build", ".")
		})
	}
}

func chartRepo(t *testing.T, dir, template string) string {
	t.Helper()
	repo, _ := hostileRepo(t, map[string]string{
		dir + "/Chart.yaml":        chartYAML,
		dir + "/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {v: \"" + template + "\"}\n",
	})
	return repo
}

// A Helm chart's templates neither: in process, through Kustomize's
// helmCharts (routeguard's helm shim, another process), and when output
// grows step by step the memory guard stops it naming the chart.
func TestHostileHelmTemplateBounds(t *testing.T) {
	t.Run("repeat", func(t *testing.T) {
		repo := chartRepo(t, "app", `{{ repeat 6000000000 "a" }}`)
		exhausted(t, repo, 2, []string{"error calling repeat", "repeat would make 5.6 GiB", "app/templates/cm.yaml"}, "render", "app")
	})
	t.Run("printf widths", func(t *testing.T) {
		repo := chartRepo(t, "app", `{{ printf (repeat 100 "%[1]*[2]s") 1000000 "a" }}`)
		exhausted(t, repo, 2, []string{"printf would make", "app/templates/cm.yaml"}, "render", "app")
	})
	t.Run("through Kustomize's helmCharts", func(t *testing.T) {
		repo := chartRepo(t, "app/charts/web", `{{ randAlphaNum 6000000000 }}`)
		if err := os.WriteFile(filepath.Join(repo, "app", "kustomization.yaml"),
			[]byte("helmCharts:\n  - name: web\n    releaseName: web\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, "app", "charts", "web", "values.yaml"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		exhausted(t, repo, 2, []string{"randAlphaNum would make", "templates/cm.yaml"}, "render", "app")
	})
	t.Run("a template's output over --max-file-size", func(t *testing.T) {
		repo := chartRepo(t, "app", `{{ range until 3000 }}{{ repeat 1000 "x" }}{{ end }}`)
		exhausted(t, repo, 2, []string{"app/templates/cm.yaml rendered 3000", "over the 1 MiB limit of one template's output"}, "render", "--max-file-size", "1", "app")
	})
	t.Run("nested loops: the guard names the chart", func(t *testing.T) {
		repo := chartRepo(t, "app", `{{ range until 100000 }}{{ range until 100000 }}xxxxxxxxxxxxxxxxxxxx{{ end }}{{ end }}`)
		exhausted(t, repo, 2, []string{"stopped while working on rendering the templates of Helm chart app", "--max-memory limit is 256 MiB"}, "render", "app")
	})
}

// Files a Flux build reads are regular files read through the size
// limit: a sparse 1 GiB file as a resource or as the kustomization, and
// /dev/zero behind a symlink, are refused by name.
func TestHostileFluxFileLimits(t *testing.T) {
	const ks = "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\n" +
		"spec:\n  interval: 10m\n  path: ./apps\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n"
	for _, tc := range []struct {
		name   string
		files  map[string]string
		sparse string // a file made 1 GiB (sparse)
		want   []string
	}{
		{"sparse resource", map[string]string{"apps/kustomization.yaml": "resources: [cm.yaml, big.yaml]\n"}, "apps/big.yaml",
			[]string{"apps/big.yaml: file is 1073741824 bytes, over the 64 MiB limit"}},
		{"sparse resource, generated kustomization", nil, "apps/big.yaml",
			[]string{"apps/big.yaml: file is 1073741824 bytes, over the 64 MiB limit"}},
		{"sparse kustomization", nil, "apps/kustomization.yaml",
			[]string{"apps/kustomization.yaml: file is 1073741824 bytes, over the 64 MiB limit"}},
		{"/dev/zero behind a symlink", map[string]string{"apps/kustomization.yaml": "resources: [cm.yaml, zero.yaml]\n", "apps/zero.yaml": "->/dev/zero"}, "",
			[]string{"zero.yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{
				"clusters/prod/apps.yaml": ks,
				"apps/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\n",
			}
			for k, v := range tc.files {
				files[k] = v
			}
			repo, _ := hostileRepo(t, files)
			if tc.sparse != "" {
				if err := os.Truncate(filepath.Join(repo, tc.sparse), 1<<30); err != nil {
					f, err := os.Create(filepath.Join(repo, tc.sparse))
					if err != nil {
						t.Fatal(err)
					}
					f.Close()
					if err := os.Truncate(filepath.Join(repo, tc.sparse), 1<<30); err != nil {
						t.Fatal(err)
					}
				}
			}
			exhausted(t, repo, 1, append(tc.want, "RG0101 Kustomization flux-system/apps"), "flux", "build", "--all", "clusters/prod")
		})
	}
}

// 58 MB of tiny YAML nodes (14 million; yaml.v3 would build ~3 GB of
// them) are refused before decoding, naming the file.
func TestHostileTinyYAMLNodes(t *testing.T) {
	head := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
	for name, content := range map[string]string{
		"block sequence": head + "items:\n" + strings.Repeat("- a\n", 58_000_000/4),
		"flow sequence":  head + "items: [" + strings.Repeat("a,", 20_000_000/2) + "]\n",
	} {
		t.Run(name, func(t *testing.T) {
			repo, _ := hostileRepo(t, map[string]string{"app/nodes.yaml": content})
			exhausted(t, repo, 2, []string{"app/nodes.yaml:1: document 1 holds about", "YAML nodes, more than the 1000000"}, "render", "app")
		})
	}
}

// health check on a route with 200,000 parents (and one with 2,000).
func TestHostileHealthCheckParents(t *testing.T) {
	route := func(n int) string {
		var b strings.Builder
		b.WriteString("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: default, generation: 1}\n" +
			"spec: {parentRefs: [{name: gw}]}\nstatus:\n  parents:\n")
		for range n {
			b.WriteString("  - parentRef: {name: gw}\n    controllerName: example.com/c\n" +
				"    conditions: [{type: Accepted, status: \"True\", reason: Accepted, observedGeneration: 1}]\n")
		}
		return b.String()
	}
	for _, tc := range []struct {
		n    int
		want string
	}{
		{200_000, "routes.yaml:1: document 1 holds about"},
		{2_000, "status.parents holds 2000 entries, more than the 1000"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "routes.yaml"), []byte(route(tc.n)), 0o644); err != nil {
			t.Fatal(err)
		}
		exhausted(t, dir, 2, []string{tc.want}, "health", "check", "routes.yaml")
	}
}

// A render that never ends stops at --timeout and at SIGTERM, with the
// message, exit code 2 and TMPDIR clean (before, SIGTERM only cancelled a
// context Helm's template engine never looks at).
func TestHostileStopsOnTimeoutAndSignal(t *testing.T) {
	loop := `{{ range until 100000 }}{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}{{ end }}`
	t.Run("timeout", func(t *testing.T) {
		repo := chartRepo(t, "app", loop)
		exhausted(t, repo, 2, []string{"stopped after 2s while working on rendering the templates of Helm chart app"}, "--timeout", "2s", "render", "app")
	})
	t.Run("SIGTERM", func(t *testing.T) {
		repo := chartRepo(t, "app", loop)
		tmp := t.TempDir()
		cmd := harness.Command(t, harness.Options{Dir: repo, Env: []string{"TMPDIR=" + tmp}}, "render", "app")
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "routeguard to create its TMPDIR", func() bool {
			entries, _ := os.ReadDir(tmp)
			return len(entries) > 0
		})
		time.Sleep(500 * time.Millisecond) // into the template loop
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
		select {
		case err = <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatalf("routeguard ignored SIGTERM for a minute (stderr: %s)", errb.String())
		}
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		checkClean(t, harness.Result{Stdout: out.String(), Stderr: errb.String(), Code: code}, tmp, 2,
			[]string{"routeguard: render stopped before finishing (SIGTERM) while working on rendering the templates of Helm chart app"})
	})
}

// waitFor polls cond for up to a minute (a condition to reach, not a
// speed to assert).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("waited a minute for %s", what)
}
