package luahealth

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/routeguard/routeguard/lua-health/internal/gen"
)

// TestGenerated checks that every health.lua and health.cel.yaml is exactly
// what the templates produce (lua-health/internal/gen, for every kind of
// routing.HealthChecked), so the copies for each kind cannot drift apart.
func TestGenerated(t *testing.T) {
	files, err := gen.Files(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no generated files")
	}
	for path, want := range files {
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run `go generate ./lua-health`)", err)
		}
		if string(got) != want {
			t.Errorf("%s is not what _templates and lua-health/internal/gen produce; run `go generate ./lua-health`", filepath.ToSlash(path))
		}
	}
}
