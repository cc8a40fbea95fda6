package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/synth"
)

// cmpRepo copies examples/ into a fresh directory laid out like this
// repository (<root>/examples/...), as argocd-cmp-server unpacks the
// repository it is sent.
func cmpRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(filepath.Join(root, "examples"), os.DirFS("../../examples")); err != nil {
		t.Fatal(err)
	}
	return root
}

// runCMPIn runs `routeguard <args>` in dir with exactly the variables vars.
func runCMPIn(ctx context.Context, dir string, vars map[string]string, args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	env := &Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return vars[k] },
		Environ: func() []string {
			var kv []string
			for k, v := range vars {
				kv = append(kv, k+"="+v)
			}
			return kv
		},
		Getwd: func() (string, error) { return dir, nil },
	}
	code = Execute(ctx, args, env)
	return out.String(), errb.String(), code
}

// argoEnv is the environment Argo CD's repo-server sends for an app.
func argoEnv(app, ns, path string, extra ...string) map[string]string {
	vars := map[string]string{
		"ARGOCD_APP_NAME": app, "ARGOCD_APP_NAMESPACE": ns, "ARGOCD_APP_SOURCE_PATH": path,
		"ARGOCD_APP_REVISION": "0123456789abcdef0123456789abcdef01234567", "ARGOCD_APP_REVISION_SHORT": "0123456",
		"ARGOCD_APP_SOURCE_REPO_URL": "https://git.example.com/platform/shop-gitops.git", "ARGOCD_APP_SOURCE_TARGET_REVISION": "main",
		"KUBE_VERSION": "1.31.0", "KUBE_API_VERSIONS": "v1,apps/v1,networking.k8s.io/v1,gateway.networking.k8s.io/v1,networking.istio.io/v1",
	}
	for i := 0; i+1 < len(extra); i += 2 {
		vars[extra[i]] = extra[i+1]
	}
	return vars
}

func params(t *testing.T, ps ...map[string]any) string {
	t.Helper()
	data, err := json.Marshal(ps)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func objectNames(t *testing.T, stdout string) []string {
	t.Helper()
	objs, err := manifest.Decode("stdout", []byte(stdout))
	if err != nil {
		t.Fatalf("stdout is not a manifest stream: %v\n%s", err, stdout)
	}
	var names []string
	for _, o := range objs {
		names = append(names, o.String())
	}
	return names
}

// TestCMPGenerateMatchesRender: generate prints exactly what render prints
// for the same app and Argo CD defaults (release, namespace, capabilities).
func TestCMPGenerateMatchesRender(t *testing.T) {
	root := cmpRepo(t)
	tests := []struct {
		app, ns, path string
		renderFlags   []string
		params        string
	}{
		{"routing-gateways", "gateway-infra", "examples/apps/routing/gateways", nil, ""},
		{"frontend-prod", "shop-prod", "examples/apps/frontend/overlays/prod", nil, ""},
		{"backend-prod", "shop-prod", "examples/apps/backend", []string{"-f", "values-prod.yaml"}, `[{"name":"values-files","array":["values-prod.yaml"]}]`},
		{"reviews", "bookinfo", "examples/apps/reviews", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.app, func(t *testing.T) {
			dir := filepath.Join(root, tt.path)
			vars := argoEnv(tt.app, tt.ns, tt.path)
			if tt.params != "" {
				vars["ARGOCD_APP_PARAMETERS"] = tt.params
			}
			got, stderr, code := runCMPIn(context.Background(), dir, vars, "cmp", "generate")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			want, stderr, code := runCMPIn(context.Background(), dir, vars, append([]string{"render", dir, "--repo-root", root}, tt.renderFlags...)...)
			if code != 0 {
				t.Fatalf("render: exit %d: %s", code, stderr)
			}
			if got != want || got == "" {
				t.Errorf("cmp generate printed\n%s\nrender printed\n%s", got, want)
			}
		})
	}
}

func TestCMPGenerateBroken(t *testing.T) {
	root := cmpRepo(t)
	dir := filepath.Join(root, "examples/broken/dangling-service")
	stdout, stderr, code := runCMPIn(context.Background(), dir, argoEnv("dangling", "checkout", "examples/broken/dangling-service"), "cmp", "generate")
	if code != ExitFindings || stdout != "" {
		t.Fatalf("exit %d, stdout %q; want exit 1 and nothing on stdout", code, stdout)
	}
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	if lines[0] != "routeguard: 1 errors, 0 warnings in examples/broken/dangling-service (directory)" {
		t.Errorf("summary line %q", lines[0])
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "examples/broken/dangling-service/app.yaml:") ||
		!strings.Contains(lines[1], ": RG1101 error HTTPRoute checkout/cart: ") || !strings.Contains(lines[1], "cart-v2") {
		t.Errorf("finding lines %q", lines[1:])
	}
}

// TestCMPGenerateReportCapped: a large failure stays readable in the UI.
func TestCMPGenerateReportCapped(t *testing.T) {
	repo, err := synth.Generate(synth.Options{Services: 30, Dangling: 25, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := repo.Write(filepath.Join(root, "examples/apps/synth")); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCMPIn(context.Background(), filepath.Join(root, "examples/apps/synth"), argoEnv("synth", "", "examples/apps/synth"), "cmp", "generate")
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	// Plugin notes and warnings (routeguard: note: ..., warning: ...) may
	// follow the report.
	if len(lines) < 22 || !strings.HasPrefix(lines[21], "... and ") || !strings.HasSuffix(lines[21], " more") ||
		(len(lines) > 22 && !strings.HasPrefix(lines[22], "routeguard: note: ") && !strings.HasPrefix(lines[22], "routeguard: warning: ")) {
		t.Errorf("want summary, 20 findings and '... and K more'; got %d lines:\n%s", len(lines), stderr)
	}
	if !strings.HasPrefix(lines[0], "routeguard: ") || !strings.Contains(lines[0], " errors, ") {
		t.Errorf("summary line %q", lines[0])
	}
}

// TestCMPParametersChangeOutput: what the UI sets changes what is rendered.
func TestCMPParametersChangeOutput(t *testing.T) {
	root := cmpRepo(t)
	gen := func(path string, extra ...string) (string, string, int) {
		return runCMPIn(context.Background(), filepath.Join(root, path), argoEnv("app", "shop-prod", path, extra...), "cmp", "generate")
	}
	t.Run("values files and helm parameters", func(t *testing.T) {
		prod, _, _ := gen("examples/apps/backend", "ARGOCD_APP_PARAMETERS", params(t, map[string]any{"name": "values-files", "array": []string{"values-prod.yaml"}}))
		dev, _, _ := gen("examples/apps/backend", "ARGOCD_APP_PARAMETERS", params(t, map[string]any{"name": "values-files", "array": []string{"values-dev.yaml"}}))
		if !strings.Contains(prod, "replicas: 6") || !strings.Contains(dev, "replicas: 1") {
			t.Errorf("values files did not change replicas:\nprod:\n%s\ndev:\n%s", prod, dev)
		}
		set, stderr, code := gen("examples/apps/backend", "ARGOCD_APP_PARAMETERS", params(t,
			map[string]any{"name": "helm-parameters", "map": map[string]string{"replicaCount": "4"}},
			map[string]any{"name": "release-name", "string": "shop"}))
		if code != 0 || !strings.Contains(set, "replicas: 4") || !strings.Contains(set, "name: shop-backend") {
			t.Errorf("helm parameters not applied (exit %d, %s):\n%s", code, stderr, set)
		}
	})
	t.Run("weights", func(t *testing.T) {
		out, stderr, code := gen("examples/apps/routing/istio", "ARGOCD_APP_PARAMETERS", params(t,
			map[string]any{"name": "weights", "map": map[string]string{"reviews": "blue 25, green 75"}}))
		if code != 0 || !strings.Contains(out, "weight: 25") || !strings.Contains(out, "weight: 75") {
			t.Errorf("weights not applied (exit %d, %s):\n%s", code, stderr, out)
		}
	})
	t.Run("fail-on never and the report object", func(t *testing.T) {
		out, stderr, code := gen("examples/broken/dangling-service", "ARGOCD_APP_PARAMETERS", params(t,
			map[string]any{"name": "fail-on", "string": "never"}, map[string]any{"name": "report", "string": "configmap"}))
		if code != 0 {
			t.Fatalf("fail-on never: exit %d: %s", code, stderr)
		}
		objs, err := manifest.Decode("stdout", []byte(out))
		if err != nil {
			t.Fatal(err)
		}
		last := objs[len(objs)-1]
		if last.String() != "ConfigMap shop-prod/routeguard-report-app" {
			t.Fatalf("last object %s, want the report ConfigMap", last)
		}
		findings, _ := last.Body["data"].(map[string]any)["findings"].(string)
		if !strings.Contains(findings, "RG1101 error HTTPRoute checkout/cart") || last.Annotations()["routeguard.io/errors"] != "1" {
			t.Errorf("report object does not carry the finding: %v", last.Body)
		}
		// fail-on from the plugin env, overridden by the parameter.
		_, _, code = gen("examples/broken/dangling-service", "ARGOCD_ENV_FAIL_ON", "never")
		if code != 0 {
			t.Errorf("plugin env FAIL_ON=never: exit %d", code)
		}
		_, _, code = gen("examples/broken/dangling-service", "ARGOCD_ENV_FAIL_ON", "never", "ARGOCD_APP_PARAMETERS", params(t, map[string]any{"name": "fail-on", "string": "error"}))
		if code != ExitFindings {
			t.Errorf("parameter fail-on=error over plugin env never: exit %d, want 1", code)
		}
	})
	t.Run("substitution variables", func(t *testing.T) {
		app := filepath.Join(root, "examples/apps/subst")
		os.MkdirAll(app, 0o755)
		os.WriteFile(filepath.Join(app, "cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: env}\ndata:\n  cluster: ${cluster}\n  domain: ${domain:=example.com}\n"), 0o644)
		_, stderr, code := gen("examples/apps/subst", "ARGOCD_APP_PARAMETERS", params(t, map[string]any{"name": "substitution-variables", "map": map[string]string{"domain": "x.io"}}))
		if code != ExitError || !strings.Contains(stderr, "cluster") {
			t.Errorf("unset variable without default: exit %d, stderr %q; want exit 2 naming it", code, stderr)
		}
		out, stderr, code := gen("examples/apps/subst", "ARGOCD_APP_PARAMETERS", params(t, map[string]any{"name": "substitution-variables", "map": map[string]string{"cluster": "prod-eu"}}))
		if code != 0 || !strings.Contains(out, "cluster: prod-eu") || !strings.Contains(out, "domain: example.com") {
			t.Errorf("substitution: exit %d %s\n%s", code, stderr, out)
		}
	})
}

func TestCMPParametersAnnouncement(t *testing.T) {
	root := cmpRepo(t)
	announce := func(path string, extra ...string) map[string]map[string]any {
		t.Helper()
		out, stderr, code := runCMPIn(context.Background(), filepath.Join(root, path), argoEnv("app", "", path, extra...), "cmp", "parameters")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var list []map[string]any
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		byName := map[string]map[string]any{}
		for _, a := range list {
			byName[a["name"].(string)] = a
		}
		return byName
	}
	helm := announce("examples/apps/backend")
	if helm["values-files"]["collectionType"] != "array" || helm["helm-parameters"]["map"].(map[string]any)["replicaCount"] != "2" {
		t.Errorf("helm app announcement: %v", helm)
	}
	istio := announce("examples/apps/routing/istio")
	if w := istio["weights"]["map"].(map[string]any)["reviews"]; w != "blue 90, green 10" {
		t.Errorf("current weights announced as %v", w)
	}
	if _, ok := istio["values-files"]; ok {
		t.Error("a directory app must not be offered Helm values files")
	}
	if istio["fail-on"]["string"] != "error" {
		t.Errorf("fail-on default %v, want the .routeguard.yaml failOn", istio["fail-on"]["string"])
	}
	// A wrong parameter still gets the form in which to fix it.
	broken := announce("examples/apps/backend", "ARGOCD_APP_PARAMETERS", params(t, map[string]any{"name": "weights", "map": map[string]string{"reviews": "blue 50, green 70"}}))
	if tip, _ := broken["fail-on"]["tooltip"].(string); !strings.Contains(tip, "add up to 120") || broken["values-files"] == nil {
		t.Errorf("announcement with a bad parameter: %v", broken)
	}
	// After the UI sets weights, the announcement shows them as current.
	changed := announce("examples/apps/routing/istio", "ARGOCD_APP_PARAMETERS", params(t, map[string]any{"name": "weights", "map": map[string]string{"reviews": "blue 50, green 50"}}))
	if w := changed["weights"]["map"].(map[string]any)["reviews"]; w != "blue 50, green 50" {
		t.Errorf("weights after the parameter: %v", w)
	}
}

// TestCMPNeverPrintsCredentials: with provideGitCreds Argo CD puts git
// credentials in the environment; no outcome may show them.
func TestCMPNeverPrintsCredentials(t *testing.T) {
	root := cmpRepo(t)
	const secret = "s3cr3t-t0ken-value"
	creds := []string{"ARGOCD_GIT_AUTH_HEADER", "Authorization: Basic " + secret, "GIT_PASSWORD", secret, "ARGOCD_GIT_ASKPASS_NONCE", secret,
		"GIT_ASKPASS", "argocd", "GIT_SSH_COMMAND", "ssh -i /tmp/" + secret}
	cases := []struct {
		name, path string
		extra      []string
	}{
		{"success", "examples/apps/routing/gateways", nil},
		{"findings", "examples/broken/dangling-service", nil},
		{"report object", "examples/broken/dangling-service", []string{"ARGOCD_ENV_FAIL_ON", "never", "ARGOCD_ENV_REPORT", "configmap"}},
		{"bad parameter", "examples/apps/routing/gateways", []string{"ARGOCD_APP_PARAMETERS", "[{\"name\":\"nope\",\"string\":\"x\"}]"}},
		{"bad plugin env", "examples/apps/routing/gateways", []string{"ARGOCD_ENV_WHATEVER", "x"}},
		{"render error", "examples/apps/backend", []string{"ARGOCD_APP_PARAMETERS", "[{\"name\":\"values-files\",\"array\":[\"missing.yaml\"]}]"}},
	}
	for _, c := range cases {
		for _, sub := range []string{"generate", "parameters", "discover"} {
			extra := append(append([]string{}, creds...), c.extra...)
			stdout, stderr, _ := runCMPIn(context.Background(), filepath.Join(root, c.path), argoEnv("app", "shop", c.path, extra...), "cmp", sub)
			if strings.Contains(stdout+stderr, secret) {
				t.Errorf("%s / cmp %s printed a credential:\nstdout: %s\nstderr: %s", c.name, sub, stdout, stderr)
			}
		}
	}
}

// TestCMPStaysInRepository: the unpacked repository is the boundary.
func TestCMPStaysInRepository(t *testing.T) {
	root := cmpRepo(t)
	outside := filepath.Join(t.TempDir(), "values-secret.yaml")
	os.WriteFile(outside, []byte("replicaCount: 9\n"), 0o644)
	os.Symlink(outside, filepath.Join(root, "examples/apps/backend/values-link.yaml"))
	for _, vf := range []string{"../../../../" + filepath.Base(filepath.Dir(outside)) + "/values-secret.yaml", "values-link.yaml", outside} {
		stdout, stderr, code := runCMPIn(context.Background(), filepath.Join(root, "examples/apps/backend"),
			argoEnv("backend", "shop", "examples/apps/backend", "ARGOCD_APP_PARAMETERS", params(t, map[string]any{"name": "values-files", "array": []string{vf}})), "cmp", "generate")
		if code != ExitError || stdout != "" || !strings.Contains(stderr, "outside the repository root") {
			t.Errorf("values file %s: exit %d, stdout %d bytes, stderr %q; want a refusal", vf, code, len(stdout), stderr)
		}
	}
}

// TestCMPGenerateCancelled: SIGTERM (a cancelled context) leaves stdout
// empty and says why.
func TestCMPGenerateCancelled(t *testing.T) {
	root := cmpRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	stdout, stderr, code := runCMPIn(ctx, filepath.Join(root, "examples/apps/routing/gateways"), argoEnv("gw", "gateway-infra", "examples/apps/routing/gateways"), "cmp", "generate")
	if code != ExitError || stdout != "" || !strings.Contains(stderr, "stopped before finishing") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestCMPDiscoverCommand(t *testing.T) {
	root := cmpRepo(t)
	if err := os.MkdirAll(filepath.Join(root, "marked"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "marked", ".routeguard-cmp"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path  string
		extra []string
		want  string
	}{
		{"examples/apps/routing/gateways", nil, ""},   // a .routeguard.yaml is configuration, not the marker
		{"examples/broken/dangling-service", nil, ""}, // an HTTPRoute is not the marker either
		{"examples/apps/edge", nil, ""},               // nor a chart's Ingress template
		{"examples/apps/backend", nil, ""},
		{"marked", nil, ".routeguard-cmp\n"},
		{"examples/apps/backend", []string{"ARGOCD_APP_PARAMETERS", "null"}, "spec.source.plugin\n"},
	}
	for _, tt := range tests {
		stdout, stderr, code := runCMPIn(context.Background(), filepath.Join(root, tt.path), argoEnv("x", "", tt.path, tt.extra...), "cmp", "discover")
		if code != 0 || stdout != tt.want {
			t.Errorf("discover %s %v: exit %d, stdout %q, stderr %q; want %q", tt.path, tt.extra, code, stdout, stderr, tt.want)
		}
	}
}

// TestCMPRunsNothingFromTheRepository: a repository's .routeguard.yaml
// cannot name a plugin binary, pinned or not, nor turn verification off;
// only the operator's catalog can.
func TestCMPRunsNothingFromTheRepository(t *testing.T) {
	root := cmpRepo(t)
	app := filepath.Join(root, "examples/broken/dangling-service")
	marker := filepath.Join(t.TempDir(), "ran")
	os.MkdirAll(filepath.Join(root, "tools"), 0o755)
	script := "#!/bin/sh\ntouch " + marker + "\n"
	os.WriteFile(filepath.Join(root, "tools/evil"), []byte(script), 0o755)
	sum := sha256.Sum256([]byte(script))
	for name, cfg := range map[string]string{
		"pinned path":     "plugins:\n  items:\n    - name: evil\n      path: tools/evil\n      sha256: " + hex.EncodeToString(sum[:]) + "\n",
		"directory":       "plugins:\n  dir: tools\n",
		"skip verify":     "plugins:\n  insecureSkipVerify: true\n  items:\n    - name: evil\n      path: /bin/true\n",
		"absolute inside": "plugins:\n  items:\n    - name: evil\n      path: " + filepath.Join(root, "tools/evil") + "\n      sha256: " + hex.EncodeToString(sum[:]) + "\n",
		"not installed":   "plugins:\n  items:\n    - name: evil\n",
	} {
		os.WriteFile(filepath.Join(root, "tools/SHA256SUMS"), []byte(hex.EncodeToString(sum[:])+"  evil\n"), 0o644)
		if err := os.WriteFile(filepath.Join(app, ".routeguard.yaml"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := runCMPIn(context.Background(), app, argoEnv("x", "checkout", "examples/broken/dangling-service"), "cmp", "generate")
		if code != ExitError || stdout != "" || !(strings.Contains(stderr, "never from the repository") || strings.Contains(stderr, "not installed here")) {
			t.Errorf("%s: exit %d, stderr %q; want a refusal", name, code, stderr)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%s: the repository's plugin ran", name)
		}
	}
}

// TestCMPGenerateSourceBuiltCluster: a cluster built from source reports
// v0.0.0, which Argo CD passes on as KUBE_VERSION. generate still renders
// the app (the version is taken as unknown, with a warning); the same
// value given as --kube-version is the user's mistake and fails.
func TestCMPGenerateSourceBuiltCluster(t *testing.T) {
	root := cmpRepo(t)
	path := "examples/apps/routing/gateways"
	dir := filepath.Join(root, path)
	want, _, code := runCMPIn(context.Background(), dir, argoEnv("routing-gateways", "gateway-infra", path), "cmp", "generate")
	if code != 0 {
		t.Fatalf("with KUBE_VERSION 1.31.0: exit %d", code)
	}
	got, stderr, code := runCMPIn(context.Background(), dir, argoEnv("routing-gateways", "gateway-infra", path, "KUBE_VERSION", "v0.0.0"), "cmp", "generate")
	if code != 0 || got != want {
		t.Fatalf("with KUBE_VERSION v0.0.0: exit %d, stdout equal to the 1.31.0 run: %v; stderr:\n%s", code, got == want, stderr)
	}
	if !strings.Contains(stderr, `routeguard: warning: KUBE_VERSION "v0.0.0" is not a Kubernetes release version`) {
		t.Errorf("no warning naming KUBE_VERSION:\n%s", stderr)
	}
	_, stderr, code = runCMPIn(context.Background(), dir, map[string]string{}, "analyze", dir, "--kube-version", "0.0.0")
	if code != ExitError || !strings.Contains(stderr, `kube version "0.0.0" is not a Kubernetes version`) {
		t.Errorf("--kube-version 0.0.0: exit %d, stderr:\n%s", code, stderr)
	}
}
