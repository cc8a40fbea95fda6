package precision

import "testing"

// An Application whose chart comes from a chart repository (skipped
// offline) and whose second source is this repository's values directory
// renders nothing here: that is not RG0007 ("the reconciler would apply
// nothing"), which is for an app every source of which rendered and was
// empty (16 false warnings on one public repository).
func TestRendersNothingOnlyWhenEverySourceRendered(t *testing.T) {
	dir := fixture(t, "argocd-chart-offline")
	r := routeguard(t, dir, "argocd", "analyze", "argocd")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	lacks(t, "report", r.stdout, "RG0007")
	contains(t, "stderr", r.stderr, "1 partly rendered")
}
