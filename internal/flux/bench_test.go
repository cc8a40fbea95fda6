package flux

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/routeguard/routeguard/internal/synth"
)

// synthCluster writes a synthetic repository of about n objects under
// apps/synth and a cluster directory whose one Kustomization builds it with
// postBuild substitution and commonMetadata.
func synthCluster(b *testing.B, n int) (repo, cluster string) {
	b.Helper()
	repo = b.TempDir()
	opts := synth.Options{Workloads: true}
	opts.Services = synth.ForObjects(n, opts)
	r, err := synth.Generate(opts)
	if err != nil {
		b.Fatal(err)
	}
	if err := r.Write(filepath.Join(repo, "apps", "synth")); err != nil {
		b.Fatal(err)
	}
	cluster = filepath.Join(repo, "clusters", "bench")
	os.MkdirAll(cluster, 0o755)
	ks := `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: synth
  namespace: flux-system
spec:
  sourceRef:
    kind: GitRepository
    name: bench
  path: ./apps/synth
  commonMetadata:
    labels:
      bench: flux
  postBuild:
    substitute:
      environment: bench
`
	if err := os.WriteFile(filepath.Join(cluster, "ks.yaml"), []byte(ks), 0o644); err != nil {
		b.Fatal(err)
	}
	return repo, cluster
}

func BenchmarkBuildKustomization(b *testing.B) {
	for _, n := range []int{1000, 2000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			repo, cluster := synthCluster(b, n)
			inv, err := Scan(repo, cluster)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				set, err := inv.BuildKustomization(context.Background(), inv.Kustomizations[0], Options{Strict: true})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(set.Len()), "objects")
			}
		})
	}
}
