package precision

import "testing"

// A home-lab Flux tree keeps its secrets in a SOPS-encrypted Secret and
// hands them to apps as postBuild variables: a Secret whose stringData is
// only ${SECRET_*} holds nothing secret in Git, nor does one holding a
// public CA bundle. RG4001 fired on both and said "plain base64" for
// stringData (14 such Secrets in a public repository).
func TestPlainSecretsLeaveVariablesAndCertificates(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "flux-secret-vars")
	r := routeguard(t, dir, "flux", "build", "--all", "--report", "text", "kubernetes/flux/cluster")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	got := lines(r.stdout, "RG4001")
	if len(got) != 1 {
		t.Fatalf("want RG4001 for legacy-password only, got %d:\n%s", len(got), r.stdout)
	}
	contains(t, "RG4001", got[0], "Secret shop/legacy-password", "1 in stringData (plain text)")
	lacks(t, "RG4001", got[0], "base64")
}
