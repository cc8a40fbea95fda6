package precision

import "testing"

// A child Kustomization built alone from its ks.yaml uses ${SECRET_DOMAIN},
// which its parent supplies by patching substituteFrom into every child:
// built alone it says which variables a parent would supply and builds
// with placeholders, instead of failing in strict mode (RG0101); built as
// part of the tree it gets the value.
func TestChildBuiltAloneNamesParentVariables(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "flux-child-alone")
	r := routeguard(t, dir, "flux", "build", "--report", "text", "kubernetes/apps/web/ks.yaml")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	lacks(t, "report", r.stdout, "RG0101")
	contains(t, "stderr", r.stderr, "routeguard: warning: built alone, 1 Kustomizations use variables that a parent Kustomization would supply (by a patch adding substituteFrom, or postBuild.substitute): SECRET_DOMAIN")
	out := routeguard(t, dir, "flux", "build", "--all", "--analyze=false", "kubernetes/flux/cluster").stdout
	contains(t, "tree", out, "- web.home.example.com")
}
