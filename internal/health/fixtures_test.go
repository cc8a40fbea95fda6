package health

import (
	"context"
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
	luahealth "github.com/routeguard/routeguard/lua-health"
)

// fixture is one health_test.yaml entry with its decoded object.
type fixture struct {
	check Check
	test  TestCase
	obj   map[string]any
}

func loadFixtures(t testing.TB) []fixture {
	t.Helper()
	checks, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var out []fixture
	for _, c := range checks {
		if len(c.Tests) == 0 {
			t.Errorf("%s: health_test.yaml lists no tests", c.Dir)
		}
		for _, tc := range c.Tests {
			p := path.Join(c.Dir, tc.InputPath)
			data, err := fs.ReadFile(luahealth.FS, p)
			if err != nil {
				t.Fatal(err)
			}
			objs, err := manifest.Decode(p, data)
			if err != nil || len(objs) != 1 {
				t.Fatalf("%s: want one object, got %d (%v)", p, len(objs), err)
			}
			out = append(out, fixture{check: c, test: tc, obj: objs[0].Body})
		}
	}
	return out
}

// TestLuaFixtures runs every fixture through the Lua VM set up like Argo CD's
// and asserts status and message exactly.
func TestLuaFixtures(t *testing.T) {
	for _, f := range loadFixtures(t) {
		t.Run(f.check.Dir+"/"+f.test.InputPath, func(t *testing.T) {
			got, err := EvalLua(context.Background(), f.check.Lua, f.obj)
			if err != nil {
				t.Fatalf("Lua error: %v", err)
			}
			if got != f.test.HealthStatus {
				t.Errorf("got  %s: %q\nwant %s: %q", got.Status, got.Message, f.test.HealthStatus.Status, f.test.HealthStatus.Message)
			}
		})
	}
}

// TestFixturesCoverEveryStatus makes sure each check has fixtures for Healthy,
// Progressing and Degraded, and that file names say the status they expect.
func TestFixturesCoverEveryStatus(t *testing.T) {
	seen := map[string]map[string]bool{}
	for _, f := range loadFixtures(t) {
		if seen[f.check.Dir] == nil {
			seen[f.check.Dir] = map[string]bool{}
		}
		seen[f.check.Dir][f.test.HealthStatus.Status] = true
		prefix := "testdata/" + strings.ToLower(f.test.HealthStatus.Status) + "_"
		if !strings.HasPrefix(f.test.InputPath, prefix) {
			t.Errorf("%s/%s: expects %s, so its name must start with %s", f.check.Dir, f.test.InputPath, f.test.HealthStatus.Status, prefix)
		}
	}
	for dir, statuses := range seen {
		for _, s := range []string{"Healthy", "Progressing", "Degraded"} {
			if !statuses[s] {
				t.Errorf("%s: no fixture expects %s", dir, s)
			}
		}
	}
}
