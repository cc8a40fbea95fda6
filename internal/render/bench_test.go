package render

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSyntheticApp writes n objects as 100 files of n/100 documents each,
// plus a kustomization listing them all.
func writeSyntheticApp(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	per := n / 100
	var files []string
	for f := 0; f < 100; f++ {
		var sb strings.Builder
		for i := 0; i < per; i++ {
			id := f*per + i
			fmt.Fprintf(&sb, "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: svc-%d\n  namespace: team-%d\n  labels:\n    app: svc-%d\nspec:\n  selector:\n    app: svc-%d\n  ports:\n    - name: http\n      port: 80\n      targetPort: 8080\n", id, id%20, id, id)
		}
		name := fmt.Sprintf("svc-%03d.yaml", f)
		files = append(files, name)
		if err := os.WriteFile(filepath.Join(dir, "app", name), []byte(sb.String()), 0o644); err != nil {
			os.MkdirAll(filepath.Join(dir, "app"), 0o755)
			if err := os.WriteFile(filepath.Join(dir, "app", name), []byte(sb.String()), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	os.MkdirAll(filepath.Join(dir, "kapp"), 0o755)
	k := "resources:\n"
	for _, f := range files {
		k += "- ../app/" + f + "\n"
	}
	os.WriteFile(filepath.Join(dir, "kapp", "kustomization.yaml"), []byte(k), 0o644)
	return dir
}

// BenchmarkRender10k renders a 10,000-object app as a plain directory and
// through Kustomize (the same files listed in a kustomization).
func BenchmarkRender10k(b *testing.B) {
	const n = 10000
	repo := writeSyntheticApp(b, n)
	for _, app := range []string{"app", "kapp"} {
		b.Run(map[string]string{"app": "directory", "kapp": "kustomize"}[app], func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				res, err := Render(context.Background(), Options{Path: filepath.Join(repo, app), RepoRoot: repo})
				if err != nil {
					b.Fatal(err)
				}
				if res.Set.Len() != n {
					b.Fatalf("%d objects", res.Set.Len())
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "objects/s")
		})
	}
}
