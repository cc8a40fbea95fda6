package e2e

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeguard/routeguard/e2e/testbed"
)

// BenchmarkAppReconcile measures the application controller's reconciliation
// of one app (examples/apps/routing/gateways, plain YAML) on a hard refresh,
// from Argo CD's own metric argocd_app_reconcile (a histogram the controller
// serves on its loopback metrics port): rendered through routeguard's
// sidecar (the Application names the plugin), and by Argo CD's own directory
// handling (no plugin). A hard refresh regenerates the manifests, so the
// sidecar's cost is in every figure of the plugin case.
//
//	make e2e-bench    (go test -run '^$' -bench AppReconcile -benchtime 10x)
func BenchmarkAppReconcile(b *testing.B) {
	for _, c := range []struct{ name, source string }{
		{"plugin", "plugin: {name: routeguard}"},
		{"directory", "directory: {}"},
	} {
		b.Run(c.name, func(b *testing.B) {
			bed := testbed.Get(b)
			argo := bed.Argo(b)
			kube := bed.Kube(b)
			repo := bed.Repo(b)
			ctx := context.Background()
			name := "bench-" + c.name
			manifest := fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: %s, namespace: argocd}
spec:
  project: default
  source:
    repoURL: %s
    targetRevision: main
    path: %s
    %s
  destination: {server: https://kubernetes.default.svc, namespace: bench}
`, name, repo.URL, gatewaysPath, c.source)
			if err := kube.ApplyYAML(ctx, []byte(manifest)); err != nil {
				b.Fatal(err)
			}
			waitReconciled := func(after string) string {
				deadline := time.Now().Add(patience)
				for {
					a, err := kube.Get(ctx, testbed.ApplicationGVK, "argocd", name)
					if err != nil {
						b.Fatal(err)
					}
					at := str(a, "status", "reconciledAt")
					_, refreshing := a.GetAnnotations()["argocd.argoproj.io/refresh"]
					if at != "" && at != after && !refreshing && str(a, "status", "sync", "status") != "" {
						return at
					}
					if time.Now().After(deadline) {
						b.Fatalf("%s not reconciled: %s", name, appSummary(a))
					}
					time.Sleep(100 * time.Millisecond)
				}
			}
			last := waitReconciled("")
			sum0, n0 := reconcileHistogram(b, argo)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				patch := `{"metadata":{"annotations":{"argocd.argoproj.io/refresh":"hard"}}}`
				a, _ := kube.Get(ctx, testbed.ApplicationGVK, "argocd", name)
				if err := kube.MergePatch(ctx, a, []byte(patch)); err != nil {
					b.Fatal(err)
				}
				// reconciledAt has a resolution of one second.
				time.Sleep(1100 * time.Millisecond)
				last = waitReconciled(last)
			}
			b.StopTimer()
			sum1, n1 := reconcileHistogram(b, argo)
			if n1 <= n0 {
				b.Fatalf("argocd_app_reconcile count did not grow (%v -> %v)", n0, n1)
			}
			// The histogram counts every app's reconciliations: this one's hard
			// refreshes and the periodic ones in between (--app-resync 10).
			b.ReportMetric((sum1-sum0)/(n1-n0)*1000, "reconcile-ms")
			b.ReportMetric(n1-n0, "reconciles")
			a, _ := kube.Get(ctx, testbed.ApplicationGVK, "argocd", name)
			if c, err := kube.For(a); err == nil {
				_ = c.Delete(ctx, name, metav1.DeleteOptions{})
			}
		})
	}
}

// reconcileHistogram sums argocd_app_reconcile's _sum and _count over its
// label sets (seconds, reconciliations).
func reconcileHistogram(b *testing.B, argo *testbed.Argo) (sum, count float64) {
	b.Helper()
	text, err := argo.Metrics()
	if err != nil {
		b.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		var target *float64
		switch {
		case strings.HasPrefix(line, "argocd_app_reconcile_sum"):
			target = &sum
		case strings.HasPrefix(line, "argocd_app_reconcile_count"):
			target = &count
		default:
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			b.Fatalf("metrics line %q: %v", line, err)
		}
		*target += v
	}
	return sum, count
}
