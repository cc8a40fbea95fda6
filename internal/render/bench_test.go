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

// BenchmarkRenderDirectory10k renders a 10,000-object plain directory app.
func BenchmarkRenderDirectory10k(b *testing.B) { benchmarkRender(b, 10000, "app") }

// BenchmarkRenderKustomize renders the same files listed in a
// kustomization. Kustomize's resource map grows quadratically (every add
// checks ids against all earlier resources), so it is measured at 1,000 and
// 2,000 objects: 10,000 takes minutes with the SDK as with `kustomize build`.
func BenchmarkRenderKustomize(b *testing.B) {
	for _, n := range []int{1000, 2000} {
		b.Run(fmt.Sprintf("%d", n), func(b *testing.B) { benchmarkRender(b, n, "kapp") })
	}
}

func benchmarkRender(b *testing.B, n int, app string) {
	repo := writeSyntheticApp(b, n)
	{
		{
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
		}
	}
}

// BenchmarkCheckNames is the cost of checking every rendered name against
// the API server's rules (CheckNames), on the 10,000 objects of
// BenchmarkRenderDirectory10k: part of that benchmark's time.
func BenchmarkCheckNames(b *testing.B) {
	repo := writeSyntheticApp(b, 10000)
	res, err := Render(context.Background(), Options{Path: filepath.Join(repo, "app"), RepoRoot: repo})
	if err != nil {
		b.Fatal(err)
	}
	objs := res.Set.Objects()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := CheckNames(objs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(objs)*b.N)/b.Elapsed().Seconds(), "objects/s")
}
