package luahealth

import (
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/gitops-engine/pkg/health"
	"github.com/argoproj/argo-cd/v3/util/lua"
)

// BenchmarkArgoCDLua evaluates each kind's check with Argo CD's VM as the
// application controller does on every refresh of every object: a new VM,
// the script compiled and run, the verdict read back. The fixture is the
// kind's first Healthy one, which walks every condition.
func BenchmarkArgoCDLua(b *testing.B) {
	seen := map[string]bool{}
	for _, f := range fixtures(b) {
		if seen[f.dir] || f.want.Status != health.HealthStatusHealthy || f.obj.Object["status"] == nil {
			continue
		}
		seen[f.dir] = true
		b.Run(strings.ReplaceAll(f.dir, "/", "_"), func(b *testing.B) {
			vm := lua.VM{}
			for i := 0; i < b.N; i++ {
				got, err := vm.ExecuteHealthLua(f.obj, f.script)
				if err != nil || got.Status != health.HealthStatusHealthy {
					b.Fatalf("got %+v %v", got, err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "evals/s")
		})
	}
}

// BenchmarkArgoCDLuaBaseline is the VM's fixed cost per evaluation: the same
// HTTPRoute object with a one-line script.
func BenchmarkArgoCDLuaBaseline(b *testing.B) {
	obj := readObject(b, root+"/gateway.networking.k8s.io/HTTPRoute/testdata/healthy_accepted.yaml")
	vm := lua.VM{}
	for i := 0; i < b.N; i++ {
		if _, err := vm.ExecuteHealthLua(obj, `return {status = "Healthy", message = "ok"}`); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "evals/s")
}
