package precision

import (
	"strings"
	"testing"
)

// Kustomize prints its deprecation warnings itself, once per kustomization
// built: three Kustomizations using commonLabels printed it three times,
// unprefixed, among routeguard's lines. It is said once, prefixed.
func TestKustomizeWarningsOnceEach(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "flux-kustomize-deprecations")
	r := routeguard(t, dir, "flux", "build", "--all", "--analyze=false", "clusters/home")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if n := strings.Count(r.stderr, "'commonLabels' is deprecated"); n != 1 {
		t.Errorf("the warning is said %d times:\n%s", n, r.stderr)
	}
	contains(t, "stderr", r.stderr, "routeguard: kustomize: warning: 'commonLabels' is deprecated")
	lacks(t, "stderr", r.stderr, "# Warning")
}
