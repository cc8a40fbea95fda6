// Command luagen writes lua-health's generated health checks (health.lua
// and health.cel.yaml of every kind in routing.HealthChecked) from
// _templates. Run through `go generate ./lua-health`.
package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/routeguard/routeguard/lua-health/internal/gen"
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	files, err := gen.Files(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "luagen:", err)
		os.Exit(1)
	}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "luagen:", err)
			os.Exit(1)
		}
		if err := os.WriteFile(full, []byte(files[p]), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "luagen:", err)
			os.Exit(1)
		}
	}
}
