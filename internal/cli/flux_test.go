package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const fluxRepo = "../flux/testdata/repo"

// TestFluxBuildBadInput: a Flux object that cannot be built is a finding
// naming it, its file:line and the cause (exit 1), and the rest of the tree
// is still built (the root's Kustomization is counted as built).
func TestFluxBuildBadInput(t *testing.T) {
	tests := []struct {
		cluster string
		want    []string // each must appear in stderr
	}{
		{"bad-strict", []string{"clusters/bad-strict/ks.yaml:1: error RG0101 Kustomization flux-system/strict", "apps/strict/configmap.yaml:7: ConfigMap settings", `variable not set (strict mode): "zone_never_set"`}},
		{"bad-malformed", []string{"clusters/bad-malformed/ks.yaml:1: error RG0101 Kustomization flux-system/malformed", "apps/malformed/configmap.yaml:1", "ConfigMap settings", "missing closing brace"}},
		{"bad-path", []string{"clusters/bad-path/ks.yaml:1: error RG0101 Kustomization flux-system/no-path", `spec.path "./apps/does-not-exist": no such directory`}},
		{"bad-values", []string{"clusters/bad-values/hr.yaml:1: error RG0102 HelmRelease apps/strict", "image.tag is required"}},
	}
	for _, tc := range tests {
		t.Run(tc.cluster, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "", "flux", "build", "--all", "--analyze=false", "--repo-root", fluxRepo, fluxRepo+"/clusters/"+tc.cluster)
			if code != ExitFindings {
				t.Fatalf("exit %d, want %d; stderr %s", code, ExitFindings, stderr)
			}
			// The rest of the tree (the cluster's own GitRepository) is
			// still built and printed.
			if !strings.Contains(stdout, "kind: GitRepository") {
				t.Errorf("the rest of the tree is missing from stdout:\n%s", stdout)
			}
			for _, w := range append(tc.want, "built 1 Kustomizations", "failed 1") {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestFluxBuildClusterOnlyConfigMap: a required substituteFrom ConfigMap
// the repository does not hold is taken as the cluster's: a warning and a
// note naming the placeholders, the build goes on; --var fills it.
func TestFluxBuildClusterOnlyConfigMap(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "flux", "build", "--all", "--analyze=false", "--repo-root", fluxRepo, fluxRepo+"/clusters/bad-missing-cm")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"clusters/bad-missing-cm/ks.yaml:1: warning RG0107 Kustomization flux-system/missing-cm", "ConfigMap flux-system/cluster-vars", "taken as created in the cluster",
		"note: ConfigMap flux-system/cluster-vars is not in the repository", "routeguard-unset-<name> stand for region, zone_never_set"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	if !strings.Contains(stdout, "region: routeguard-unset-region") {
		t.Errorf("no placeholder for region:\n%s", stdout)
	}
	stdout, stderr, code = runCLI(t, "", "flux", "build", "--all", "--analyze=false", "--var", "region=eu", "--var", "zone_never_set=a", "--repo-root", fluxRepo, fluxRepo+"/clusters/bad-missing-cm")
	if code != ExitOK || !strings.Contains(stdout, "region: eu\n") || strings.Contains(stdout, "routeguard-unset-region") {
		t.Errorf("--var region=eu: exit %d, stderr %s\nstdout %s", code, stderr, stdout)
	}
}

func TestFluxBuildStrictSwitch(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "flux", "build", "--all", "--strict=false", "--analyze=false", "--repo-root", fluxRepo, fluxRepo+"/clusters/bad-strict")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "region: eu\n") || !strings.Contains(stdout, "zone: null") {
		t.Fatalf("non-strict substitution should set region and leave zone empty (null, as Flux does):\n%s", stdout)
	}
}

func TestFluxBuildSelectAndSecrets(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "flux", "build", "--name", "plain", "-n", "flux-system", "--analyze=false", "--repo-root", fluxRepo, fluxRepo+"/clusters/good")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"name: t-web-x", "namespace: web", "value: s3cr3t-t0ken", "image: nginx:1.27", "replicas: 3", `note: "${left_alone}"`, "owner: platform"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	if strings.Contains(stdout, "helm.toolkit.fluxcd.io") {
		t.Errorf("--name plain built the HelmRelease too")
	}
	if _, stderr, code := runCLI(t, "", "flux", "build", "--name", "nope", "--repo-root", fluxRepo, fluxRepo+"/clusters/good"); code != ExitError || !strings.Contains(stderr, `no Kustomization or HelmRelease named "nope"`) {
		t.Errorf("unknown name: exit %d, %s", code, stderr)
	}
}

func TestFluxBuildRemoteChartWarns(t *testing.T) {
	_, stderr, code := runCLI(t, "", "flux", "build", "--all", "--analyze=false", "--repo-root", fluxRepo, fluxRepo+"/clusters/good")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "clusters/good/apps.yaml:91: info RG0106 HelmRelease flux-system/remote: not built here") || !strings.Contains(stderr, "HelmRepository flux-system/podinfo") ||
		!strings.Contains(stderr, "skipped 1 (1 HelmRepository not in the tree)") {
		t.Fatalf("no warning for the remote chart:\n%s", stderr)
	}
}

func TestFluxBuildExamples(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "flux", "build", "--all", "../../examples/flux/clusters/prod")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The weights as written (kustomize-controller applies them so) and the
	// hostname substituted.
	for _, w := range []string{"name: reviews-blue\n      port: 9080\n      weight: 100", "name: reviews-green\n      port: 9080\n      weight: 0", "hostnames:\n  - reviews.shop.example.com"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	report, _, code := runCLI(t, "", "flux", "build", "--all", "--report", "json", "../../examples/flux/clusters/prod")
	// Only infos: the validation analyzers know no CRD for Flux's own kinds
	// (RG5007).
	if code != ExitOK || !strings.Contains(report, `"errors": 0,
    "warnings": 0,`) {
		t.Fatalf("json report (exit %d):\n%s", code, report)
	}
}

func TestFluxBuildUsage(t *testing.T) {
	for _, args := range [][]string{
		{"flux", "build", fluxRepo + "/clusters/good"},
		{"flux", "build", "--all", "--name", "x", fluxRepo},
		{"flux", "nope"},
		{"flux", "build", "--all", "--fail-on", "sometimes", fluxRepo},
	} {
		stdout, stderr, code := runCLI(t, "", args...)
		if code != ExitError || stdout != "" || stderr == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFluxBuildTransformsNotApplied: kustomize-controller never runs
// routeguard, so a .routeguard.yaml's transforms and a routeguard_weights
// variable do not change what flux build prints (what Flux applies); each
// is one RG0109 warning naming where it is set.
func TestFluxBuildTransformsNotApplied(t *testing.T) {
	repo := t.TempDir()
	copyDir(t, "../../examples/flux", filepath.Join(repo, "examples", "flux"))
	cluster := filepath.Join(repo, "examples", "flux", "clusters", "prod")
	want, stderr, code := runCLI(t, "", "flux", "build", "--name", "reviews", "--analyze=false", "--repo-root", repo, cluster)
	if code != ExitOK || strings.Contains(stderr, "RG0109") {
		t.Fatalf("without transforms: exit %d: %s", code, stderr)
	}
	cfg := "# traffic switch\nfailOn: error\ntransforms:\n  weights:\n    reviews: {blue: 80, green: 20}\n"
	if err := os.WriteFile(filepath.Join(repo, "examples/flux/apps/reviews-gateway/.routeguard.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ks := readFile(t, filepath.Join(cluster, "reviews.yaml"))
	ks = strings.Replace(ks, "  postBuild:\n", "  postBuild:\n    substitute:\n      routeguard_weights: \"reviews: blue 5, green 95\"\n", 1)
	if err := os.WriteFile(filepath.Join(cluster, "reviews.yaml"), []byte(ks), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, "", "flux", "build", "--name", "reviews", "--analyze=false", "--repo-root", repo, cluster)
	if code != ExitOK || stdout != want {
		t.Fatalf("exit %d, output the same as without transforms: %v; stderr:\n%s", code, stdout == want, stderr)
	}
	for _, w := range []string{
		"examples/flux/apps/reviews-gateway/.routeguard.yaml:3: warning RG0109 Kustomization flux-system/reviews: transforms (weights for reviews) of examples/flux/apps/reviews-gateway/.routeguard.yaml are not applied",
		"warning RG0109 Kustomization flux-system/reviews: spec.postBuild.substitute.routeguard_weights sets no weights",
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	if n := strings.Count(stderr, "RG0109"); n != 2 {
		t.Errorf("%d RG0109 findings, want 2:\n%s", n, stderr)
	}
}

func TestFluxBuildFile(t *testing.T) {
	// A file: its Flux objects only, with its directory's ConfigMaps.
	stdout, stderr, code := runCLI(t, "", "flux", "build", "--analyze=false", "../../examples/flux/clusters/prod/apps.yaml")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "name: status-page") || !strings.Contains(stdout, "name: frontend") || !strings.Contains(stdout, "value: prod-eu-1") {
		t.Fatalf("apps.yaml's Kustomizations not built with cluster-vars:\n%s", stdout)
	}
	if strings.Contains(stdout, "reviews") || strings.Contains(stdout, "helm.toolkit.fluxcd.io") {
		t.Fatalf("objects of other files were built:\n%s", stdout)
	}
}

// TestFluxBuildNothingChecked: a tree whose output holds no routing object,
// and whose inputs hold none either (its skipped HelmRelease has no
// routing values), routes nothing: RG0100 at info, saying so, not an error
// (most Kustomizations of a repository have no routing; a per-app CI job
// failed on all of them); a tree with routes is not RG0100 at all.
func TestFluxBuildNothingChecked(t *testing.T) {
	_, stderr, code := runCLI(t, "", "flux", "build", "--all", "--repo-root", fluxRepo, fluxRepo+"/clusters/good")
	if strings.Contains(stderr, "error RG0100") || !strings.Contains(stderr, "info RG0100 Kustomization flux-system/flux-system: the build holds no routing object (it produced ") ||
		!strings.Contains(stderr, "what it was built from holds none either") || !strings.Contains(stderr, "it routes nothing") {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if _, stderr, _ := runCLI(t, "", "flux", "build", "--all", "../../examples/flux/clusters/prod"); strings.Contains(stderr, "RG0100") {
		t.Errorf("RG0100 on a tree with routes:\n%s", stderr)
	}
}

// TestFluxBuildHomeExample: examples/flux/clusters/home, the shape flux
// bootstrap and the app-per-directory convention produce, built as a tree:
// child Kustomizations from cluster-apps (patched to substitute from a
// Secret only the cluster has), a chart in Git, an OCIRepository and a
// HelmRepository chart (skipped offline, named), another repository's
// GitRepository (skipped, named), configMapGenerator input that is not an
// object; --var fills the cluster-only variable.
func TestFluxBuildHomeExample(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "flux", "build", "--all", "../../examples/flux/clusters/home")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{
		"built 6 Kustomizations, rendered 1 HelmReleases, skipped 3 (1 another Git repository, 2 chart needs the network), failed 0",
		"info RG0106 Kustomization flux-system/gateway-api-crds: not built here: its source, GitRepository flux-system/gateway-api (https://github.com/kubernetes-sigs/gateway-api, tag v1.3.0",
		"info RG0106 HelmRelease podinfo/podinfo: not built here: its chart oci://ghcr.io/stefanprodan/charts/podinfo:6.9.0",
		"info RG0106 HelmRelease observability/grafana",
		"warning RG0001 HTTPRoute podinfo/podinfo: backendRef names Service podinfo/podinfo, which cannot be checked: it may be among the objects routeguard could not render (HelmRelease podinfo/podinfo was not built here (chart needs the network)",
		"note: Secret flux-system/cluster-secrets is made in the cluster by ExternalSecret flux-system/cluster-secrets",
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	for _, w := range []string{"- echo.routeguard-unset-secret-domain", `hostname: "*.routeguard-unset-secret-domain"`, "greeting: hello from home", "kind: Service\nmetadata:\n  labels:\n    helm.toolkit.fluxcd.io/name: echo\n    helm.toolkit.fluxcd.io/namespace: echo\n  name: echo\n  namespace: echo\n"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q", w)
		}
	}
	stdout, _, code = runCLI(t, "", "flux", "build", "--all", "--var", "SECRET_DOMAIN=home.example.com", "../../examples/flux/clusters/home")
	if code != ExitOK || !strings.Contains(stdout, "- echo.home.example.com") || strings.Contains(stdout, "routeguard-unset-") {
		t.Errorf("--var SECRET_DOMAIN: exit %d", code)
	}
}
