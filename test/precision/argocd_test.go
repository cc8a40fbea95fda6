package precision

import "testing"

// An Application whose chart comes from a chart repository (skipped
// offline) and whose second source is this repository's values directory
// renders nothing here: that is not RG0007 ("the reconciler would apply
// nothing"), which is for an app every source of which rendered and was
// empty (16 false warnings on one public repository).
func TestRendersNothingOnlyWhenEverySourceRendered(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "argocd-chart-offline")
	r := routeguard(t, dir, "argocd", "analyze", "argocd")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	lacks(t, "report", r.stdout, "RG0007")
	contains(t, "stderr", r.stderr, "1 partly rendered")
}

// A cluster whose Applications mostly come from other repositories, the
// rest routing nothing, is RG0100 at info — an error there blocked a
// repository that was fine (every app of one public repository was from
// another); an Application of this repository that does not render and
// holds an HTTPRoute makes it an error naming the route's file.
func TestArgoCDNothingCheckedOnlyWhenRoutingWasNotRendered(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "argocd-routing-unbuilt")
	r := routeguard(t, dir, "argocd", "analyze", "--repo-url", "https://github.com/example/talos-homelab.git", "argocd/apps.yaml")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	contains(t, "report", r.stdout, "info RG0100 Cluster in-cluster", "nothing it was rendered from holds routing as far as this repository shows (2 parts were not rendered")

	r = routeguard(t, dir, "argocd", "analyze", "--repo-url", "https://github.com/example/talos-homelab.git", "argocd")
	if r.code != 1 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	contains(t, "report", r.stdout, "error RG0100 Cluster in-cluster", "Application argocd/shop (apps/shop/httproute.yaml)")
	contains(t, "stderr", r.stderr, "routeguard: not built: Application argocd/shop (argocd/shop.yaml:1): does not render", "the routing it holds was not checked: apps/shop/httproute.yaml")
}

// A chart repository declared as a repository Secret scoped to the project
// (project: k3s) is permitted in that project without a sourceRepos entry,
// as Argo CD adds scoped repositories to it: RG0203 was a false error for
// each such Application (9 on one public repository); one whose repository
// is neither scoped nor listed stays refused.
func TestProjectScopedRepositoriesPermitted(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "argocd-scoped-repositories")
	r := routeguard(t, dir, "argocd", "analyze", "--repo-url", "https://github.com/example/home-ops", "apps/argocd/apps.yaml")
	got := lines(r.stdout, "RG0203")
	if len(got) != 1 || len(lines(got[0], "Application argocd/reloader")) != 1 {
		t.Fatalf("want RG0203 for reloader only:\n%s\n%s", r.stdout, r.stderr)
	}
	// The repository Secret holds settings (url, type, project), no
	// credential: not RG4001 (9 false warnings on the same repository).
	lacks(t, "report", r.stdout, "RG4001")
}
