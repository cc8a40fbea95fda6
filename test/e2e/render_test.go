package e2e

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
)

var update = flag.Bool("update", false, "rewrite testdata/examples.golden")

// exampleApps are the apps under examples/ that render on their own, with
// the flags their Argo CD Application or Flux Kustomization would pass.
var exampleApps = []struct {
	path string
	args []string
}{
	{"examples/apps/frontend/overlays/dev", nil},
	{"examples/apps/frontend/overlays/stage", nil},
	{"examples/apps/frontend/overlays/prod", nil},
	{"examples/apps/backend", []string{"--namespace", "shop-prod", "-f", "values-prod.yaml"}},
	{"examples/apps/backend", []string{"--namespace", "shop-dev", "-f", "values-dev.yaml", "--release", "backend-dev"}},
	{"examples/apps/reviews", nil},
	{"examples/apps/edge", nil},
	{"examples/apps/routing/gateways", nil},
	{"examples/apps/routing/istio", nil},
	{"examples/apps/routing/ingresses", nil},
	{"examples/argocd", []string{"--recurse", "--exclude", "root-app.yaml"}},
	{"examples/flux/clusters/prod", nil},
	{"examples/flux/apps/status-page", nil},
	{"examples/broken/dangling-service", nil},
	{"examples/broken/missing-subset", nil},
	{"examples/broken/missing-listener", nil},
	{"examples/broken/duplicate-ingress", nil},
}

// TestRenderExamples renders every example app with the real binary and
// compares the objects it prints (identity, in order) with the golden list.
func TestRenderExamples(t *testing.T) {
	var got strings.Builder
	for _, app := range exampleApps {
		args := append([]string{"render", app.path}, app.args...)
		r := routeguard(t, nil, args...)
		if r.code != 0 {
			t.Fatalf("routeguard %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
		if r.stderr != "" {
			t.Errorf("routeguard %s: unexpected stderr %q", strings.Join(args, " "), r.stderr)
		}
		objs, err := manifest.Decode("stdout", []byte(r.stdout))
		if err != nil {
			t.Fatalf("routeguard %s printed invalid YAML: %v", strings.Join(args, " "), err)
		}
		got.WriteString("# " + strings.Join(args[1:], " ") + "\n")
		for _, o := range objs {
			got.WriteString(o.APIVersion + " " + o.String() + "\n")
		}
	}
	golden := filepath.Join("testdata", "examples.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./test/e2e -update once)", err)
	}
	if got.String() != string(want) {
		t.Errorf("rendered objects differ from %s:\n--- got\n%s--- want\n%s", golden, got.String(), want)
	}
}

// TestRenderDeterministic renders each app twice (YAML and JSON): same bytes.
func TestRenderDeterministic(t *testing.T) {
	for _, app := range exampleApps {
		for _, format := range []string{"yaml", "json"} {
			args := append([]string{"render", app.path, "-o", format}, app.args...)
			a := routeguard(t, nil, args...)
			b := routeguard(t, nil, args...)
			if a.code != 0 || a.stdout == "" {
				t.Fatalf("%v: exit %d, %d bytes: %s", args, a.code, len(a.stdout), a.stderr)
			}
			if a.stdout != b.stdout {
				t.Errorf("%v: two runs printed different bytes", args)
			}
		}
	}
}

// TestRenderHelmFromArgoEnv checks the defaults Argo CD's build environment
// supplies: release from ARGOCD_APP_NAME, namespace from
// ARGOCD_APP_NAMESPACE, capabilities from KUBE_VERSION.
func TestRenderHelmFromArgoEnv(t *testing.T) {
	r := routeguard(t, []string{"ARGOCD_APP_NAME=shop-api", "ARGOCD_APP_NAMESPACE=shop-stage", "KUBE_VERSION=1.30.2"},
		"render", "examples/apps/backend", "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	objs, err := manifest.Decode("stdout", []byte(r.stdout))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range objs {
		names = append(names, o.String())
	}
	sort.Strings(names)
	want := "Deployment shop-stage/shop-api-backend,Service shop-stage/shop-api-backend"
	if strings.Join(names, ",") != want {
		t.Errorf("got %v, want %s", names, want)
	}
}
