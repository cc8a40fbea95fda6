package precision

import "testing"

// An Ingress whose use-annotation backend's action annotation Argo
// Rollouts writes at run time (a canary with trafficRouting.alb naming
// the Ingress and its rootService) is not missing it: it was an RG2007
// error.
func TestRolloutWritesALBAction(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "rollouts-alb-canary")
	r := routeguard(t, dir, "analyze", "apps/web")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	lacks(t, "report", r.stdout, "RG2007")
}
