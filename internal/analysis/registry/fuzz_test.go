package registry

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
)

// FuzzAnalyzers feeds arbitrary YAML streams (seeded with every fixture of
// every analyzer package) to every analyzer: whatever decodes must analyze
// without a panic or an internal error. `go test` runs the seeds; explore
// with go test -fuzz FuzzAnalyzers ./internal/analysis/registry.
func FuzzAnalyzers(f *testing.F) {
	files, err := filepath.Glob("../*/testdata/*.yaml")
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	all := All()
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := manifest.Decode("fuzz.yaml", data)
		if err != nil {
			return
		}
		s := manifest.NewSet()
		for _, o := range objs {
			_ = s.Add(o) // duplicates are the decoder's concern, not the analyzers'
		}
		if _, err := analysis.RunAnalyzers(context.Background(), analysis.RunOptions{Set: s, ContextSet: s, Analyzers: all}); err != nil {
			t.Fatal(err)
		}
	})
}
