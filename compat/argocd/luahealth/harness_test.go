package luahealth

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/argoproj/argo-cd/gitops-engine/pkg/health"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// root is lua-health/ of the main repository.
var root = filepath.Join("..", "..", "..", "lua-health")

// testTable is health_test.yaml: Argo CD's format (its util/lua tests read
// the same fields) plus routeguard's flux block, which Argo CD ignores.
type testTable struct {
	Tests []struct {
		InputPath    string              `json:"inputPath"`
		HealthStatus health.HealthStatus `json:"healthStatus"`
	} `json:"tests"`
}

// fixture is one test of one check.
type fixture struct {
	dir    string // <group>/<Kind>
	script string
	input  string // testdata/<status>_<reason>.yaml
	want   health.HealthStatus
	obj    *unstructured.Unstructured
}

// checks lists the <group>/<Kind> directories that hold a health.lua.
func checks(t testing.TB) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), "_") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "health.lua" {
			rel, _ := filepath.Rel(root, filepath.Dir(p))
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", root, err)
	}
	if len(dirs) != 11 {
		t.Fatalf("found %d health.lua under %s, want the 11 kinds: %v", len(dirs), root, dirs)
	}
	sort.Strings(dirs)
	return dirs
}

// fixtures loads every test of every check. Objects are decoded as the
// application controller receives them from the API server: JSON into
// unstructured, integers as int64.
func fixtures(t testing.TB) []fixture {
	t.Helper()
	var out []fixture
	for _, dir := range checks(t) {
		script, err := os.ReadFile(filepath.Join(root, dir, "health.lua"))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(filepath.Join(root, dir, "health_test.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var table testTable
		if err := yaml.Unmarshal(raw, &table); err != nil {
			t.Fatalf("%s/health_test.yaml: %v", dir, err)
		}
		if len(table.Tests) == 0 {
			t.Fatalf("%s/health_test.yaml: no tests", dir)
		}
		for _, tc := range table.Tests {
			out = append(out, fixture{dir: dir, script: string(script), input: tc.InputPath, want: tc.HealthStatus,
				obj: readObject(t, filepath.Join(root, dir, tc.InputPath))})
		}
	}
	return out
}

func readObject(t testing.TB, path string) *unstructured.Unstructured {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(raw)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(js); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return obj
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// routeguard returns the routeguard binary: $ROUTEGUARD_BIN (make test-compat
// sets it), else one built from the main module into a temporary directory.
func routeguard(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("ROUTEGUARD_BIN"); p != "" {
		return p
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "routeguard-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "routeguard")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/routeguard")
		cmd.Dir = filepath.Join("..", "..", "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = err
			t.Logf("go build: %s", out)
		}
	})
	if binErr != nil {
		t.Fatalf("build routeguard (or set ROUTEGUARD_BIN): %v", binErr)
	}
	return binPath
}
