package precision

import "testing"

// A chart whose vendored dependency archive is a Git LFS pointer (the
// checkout did not fetch LFS content) is named as one, with how to fetch
// it; Helm's own message was "gzip: invalid header".
func TestLFSPointerNamed(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "argocd-lfs-chart")
	r := routeguard(t, dir, "argocd", "analyze", "argocd")
	if r.code != 1 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	contains(t, "report", r.stdout, "RG0009 Application argocd/web", "charts/web/charts/redis-20.0.0.tgz:1: this file is a Git LFS pointer", "git lfs pull", "lfs: true")
	lacks(t, "report", r.stdout, "gzip")
}
