package luahealth

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated health.lua and health.cel.yaml files")

// TestGenerated checks that every health.lua and health.cel.yaml is exactly
// what the templates produce, so the copies for each kind cannot drift apart.
func TestGenerated(t *testing.T) {
	for _, k := range kinds {
		tmpl, err := os.ReadFile(filepath.Join("_templates", k.template+".lua"))
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(k.group, k.kind)
		want := map[string]string{
			"health.lua":      renderLua(string(tmpl), k),
			"health.cel.yaml": renderCEL(k),
		}
		for name, content := range want {
			path := filepath.Join(dir, name)
			if *update {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run `go test ./lua-health -run TestGenerated -update`)", err)
			}
			if string(got) != content {
				t.Errorf("%s is not what %s.lua / cel_gen_test.go generate; run `go test ./lua-health -run TestGenerated -update`", path, k.template)
			}
		}
	}
}
