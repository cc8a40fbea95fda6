package luahealth

import (
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/gitops-engine/pkg/health"
	"github.com/argoproj/argo-cd/v3/util/lua"
)

// TestWaitBoundary checks the 5-minute wait for a controller against the
// real clock, in several local time zones (Argo CD's safe os.date formats in
// local time): created 4 minutes ago is Progressing, 6 minutes ago Degraded.
// The one-minute margins keep it independent of how long the test takes.
func TestWaitBoundary(t *testing.T) {
	saved := time.Local
	defer func() { time.Local = saved }()
	cases := []struct {
		dir  string
		age  time.Duration
		want health.HealthStatusCode
	}{
		{"gateway.networking.k8s.io/HTTPRoute", 4 * time.Minute, health.HealthStatusProgressing},
		{"gateway.networking.k8s.io/HTTPRoute", 6 * time.Minute, health.HealthStatusDegraded},
		{"gateway.networking.k8s.io/Gateway", 4 * time.Minute, health.HealthStatusProgressing},
		{"gateway.networking.k8s.io/Gateway", 6 * time.Minute, health.HealthStatusDegraded},
		{"gateway.networking.k8s.io/BackendTLSPolicy", 6 * time.Minute, health.HealthStatusDegraded},
	}
	fx := map[string]fixture{}
	for _, f := range fixtures(t) {
		if strings.HasSuffix(f.input, "degraded_noControllerAfterWait.yaml") {
			fx[f.dir] = f
		}
	}
	for _, zone := range []*time.Location{time.UTC, time.FixedZone("UTC-10", -10*3600), time.FixedZone("UTC+5:30", 5*3600+1800), time.FixedZone("UTC+14", 14*3600)} {
		time.Local = zone
		for _, c := range cases {
			f, ok := fx[c.dir]
			if !ok {
				t.Fatalf("%s: no degraded_noControllerAfterWait fixture", c.dir)
			}
			obj := f.obj.DeepCopy()
			md := obj.Object["metadata"].(map[string]any)
			md["creationTimestamp"] = time.Now().UTC().Add(-c.age).Format(time.RFC3339)
			got, err := (lua.VM{}).ExecuteHealthLua(obj, f.script)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != c.want {
				t.Errorf("%s, local zone %s, created %s ago: got %s (%q), want %s", c.dir, zone, c.age, got.Status, got.Message, c.want)
			}
		}
	}
}
