package luahealth

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/argoproj/argo-cd/v3/util/lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// differencesPath lists where routeguard's checks deliberately disagree with
// the built-in checks of the Argo CD release under test.
var differencesPath = filepath.Join(root, "argocd-differences.yaml")

// docsPath explains each reason of the list.
var docsPath = filepath.Join("..", "..", "..", "docs", "health.md")

type difference struct {
	Kind    string `json:"kind"`    // <group>/<Kind>
	Fixture string `json:"fixture"` // routeguard's, relative to lua-health/<group>/<Kind>
	ArgoCD  string `json:"argocd"`  // the built-in check's verdict, or "error"
	Reason  string `json:"reason"`  // a key of reasons
}

type differences struct {
	Reasons     map[string]string `json:"reasons"`
	Differences []difference      `json:"differences"`
}

func loadDifferences(t testing.TB) differences {
	t.Helper()
	raw, err := os.ReadFile(differencesPath)
	if err != nil {
		t.Fatal(err)
	}
	var d differences
	if err := yaml.UnmarshalStrict(raw, &d); err != nil {
		t.Fatalf("%s: %v", differencesPath, err)
	}
	return d
}

var (
	modOnce sync.Once
	modDir  string
	modErr  error
)

// argoCDModule is the directory of the github.com/argoproj/argo-cd/v3 module
// this package is built against (the module cache holds its
// resource_customizations/, fixtures included).
func argoCDModule(t testing.TB) string {
	t.Helper()
	modOnce.Do(func() {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/argoproj/argo-cd/v3").Output()
		modDir, modErr = strings.TrimSpace(string(out)), err
	})
	if modErr != nil || modDir == "" {
		t.Fatalf("locate the argo-cd module: %v", modErr)
	}
	return modDir
}

// builtinVerdict evaluates obj the way the application controller does when
// argocd-cm has no key for its kind: GetHealthScript finds the built-in
// script, run with the open libraries Argo CD gives built-ins. A Lua error
// is "error". ok is false when Argo CD has no built-in check for the kind.
func builtinVerdict(t testing.TB, obj *unstructured.Unstructured) (status, message string, ok bool) {
	t.Helper()
	script, useOpenLibs, err := (lua.VM{}).GetHealthScript(obj)
	if err != nil {
		t.Fatalf("GetHealthScript: %v", err)
	}
	if script == "" {
		return "", "", false
	}
	if !useOpenLibs {
		t.Fatalf("%s: the built-in script does not run with open libraries; the test no longer runs it as Argo CD does", obj.GetKind())
	}
	got, err := (lua.VM{UseOpenLibs: true}).ExecuteHealthLua(obj, script)
	if err != nil {
		return "error", err.Error(), true
	}
	return string(got.Status), got.Message, true
}

// sharedKinds are the <group>/<Kind> directories of lua-health/ for which the
// Argo CD release under test has a built-in check (read from its
// resource_customizations/, then confirmed through GetHealthScript).
func sharedKinds(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, dir := range checks(t) {
		if _, err := os.Stat(filepath.Join(argoCDModule(t), "resource_customizations", dir, "health.lua")); err == nil {
			out = append(out, dir)
		}
	}
	return out
}

// TestSharedKinds pins which of routeguard's kinds the Argo CD release under
// test checks itself; `routeguard health bundle --for argocd` leaves out
// exactly these (TestBundleThroughArgoCDSettings).
func TestSharedKinds(t *testing.T) {
	want := []string{
		"gateway.networking.k8s.io/BackendTLSPolicy", "gateway.networking.k8s.io/GRPCRoute",
		"gateway.networking.k8s.io/Gateway", "gateway.networking.k8s.io/HTTPRoute",
	}
	got := sharedKinds(t)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Argo CD's built-in checks cover %v of routeguard's kinds, want %v (update internal/health/argocd.go and this list)", got, want)
	}
	for _, f := range fixtures(t) {
		_, _, has := builtinVerdict(t, f.obj)
		shared := false
		for _, k := range got {
			shared = shared || k == f.dir
		}
		if has != shared {
			t.Errorf("%s: GetHealthScript finds a built-in check: %v; resource_customizations has one: %v", f.dir, has, shared)
		}
	}
}

// upstreamCase is one test of Argo CD's health_test.yaml for a kind.
type upstreamCase struct {
	dir, input, wantStatus string
	obj                    *unstructured.Unstructured
}

func upstreamCases(t testing.TB) []upstreamCase {
	t.Helper()
	var out []upstreamCase
	for _, dir := range sharedKinds(t) {
		base := filepath.Join(argoCDModule(t), "resource_customizations", dir)
		raw, err := os.ReadFile(filepath.Join(base, "health_test.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var table testTable
		if err := yaml.Unmarshal(raw, &table); err != nil {
			t.Fatalf("%s/health_test.yaml: %v", base, err)
		}
		for _, tc := range table.Tests {
			out = append(out, upstreamCase{dir: dir, input: tc.InputPath, wantStatus: string(tc.HealthStatus.Status),
				obj: readObject(t, filepath.Join(base, tc.InputPath))})
		}
	}
	return out
}

// TestSameVerdictsOnArgoCDFixtures runs routeguard's check (as argocd-cm
// would run it: no open libraries) on every fixture of Argo CD's own tests
// for the kinds both ship, read from the module cache, and expects the
// verdict Argo CD's built-in check gives (which must be the one its test
// table expects, so the comparison is with the real built-in).
func TestSameVerdictsOnArgoCDFixtures(t *testing.T) {
	ours := map[string]string{}
	for _, s := range scripts(t) {
		ours[s.dir] = s.lua
	}
	cases := upstreamCases(t)
	if len(cases) < 23 {
		t.Fatalf("only %d fixtures in Argo CD's tests for %v; the module layout changed?", len(cases), sharedKinds(t))
	}
	for _, c := range cases {
		t.Run(c.dir+"/"+c.input, func(t *testing.T) {
			theirs, msg, ok := builtinVerdict(t, c.obj)
			if !ok || theirs != c.wantStatus {
				t.Fatalf("Argo CD's built-in check gives %s (%q), its test table expects %s", theirs, msg, c.wantStatus)
			}
			got, err := (lua.VM{}).ExecuteHealthLua(c.obj, ours[c.dir])
			if err != nil {
				t.Fatalf("routeguard's check: %v", err)
			}
			if string(got.Status) != theirs {
				t.Errorf("routeguard: %s (%q); Argo CD: %s (%q)", got.Status, got.Message, theirs, msg)
			}
		})
	}
}

// TestDifferencesFromArgoCDAreListed runs Argo CD's built-in check on every
// fixture of routeguard's for the shared kinds. Where the verdicts differ the
// difference must be listed in lua-health/argocd-differences.yaml (with
// Argo CD's verdict and a reason explained in docs/health.md), and every
// listed difference must still be one.
func TestDifferencesFromArgoCDAreListed(t *testing.T) {
	d := loadDifferences(t)
	listed := map[string]difference{}
	for _, e := range d.Differences {
		key := e.Kind + "/" + e.Fixture
		if _, dup := listed[key]; dup {
			t.Errorf("%s: %s listed twice", differencesPath, key)
		}
		if d.Reasons[e.Reason] == "" {
			t.Errorf("%s: %s: reason %q is not one of reasons", differencesPath, key, e.Reason)
		}
		listed[key] = e
	}
	docs, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	for reason := range d.Reasons {
		if !strings.Contains(string(docs), "`"+reason+"`") {
			t.Errorf("docs/health.md does not explain the reason `%s`", reason)
		}
	}
	shared := map[string]bool{}
	for _, k := range sharedKinds(t) {
		shared[k] = true
	}
	seen := map[string]bool{}
	var unlisted []string
	for _, f := range fixtures(t) {
		if !shared[f.dir] {
			continue
		}
		key := f.dir + "/" + f.input
		theirs, msg, _ := builtinVerdict(t, f.obj)
		e, isListed := listed[key]
		switch {
		case theirs == string(f.want.Status) && isListed:
			t.Errorf("%s is listed as a difference, but Argo CD's check agrees (%s)", key, theirs)
		case theirs != string(f.want.Status) && !isListed:
			unlisted = append(unlisted, fmt.Sprintf("- kind: %s\n  fixture: %s\n  argocd: %s\n  reason: ?  # routeguard: %s; Argo CD: %q", f.dir, f.input, theirs, f.want.Status, msg))
		case isListed && e.ArgoCD != theirs:
			t.Errorf("%s: listed with Argo CD's verdict %s, it is %s (%q)", key, e.ArgoCD, theirs, msg)
		}
		seen[key] = true
	}
	sort.Strings(unlisted)
	if len(unlisted) > 0 {
		t.Errorf("routeguard's check and Argo CD's disagree on fixtures not listed in %s:\n%s", differencesPath, strings.Join(unlisted, "\n"))
	}
	for key := range listed {
		if !seen[key] {
			t.Errorf("%s lists %s, which is not a fixture of a kind Argo CD checks", differencesPath, key)
		}
	}
}
