package precision

import "testing"

// A flux-operator home lab: FluxInstance syncs the cluster directory, a
// ResourceSet generates one HelmRelease (chart in Git) and HTTPRoute per
// app, another takes its inputs from GitHub pull requests. The Services
// the generated HelmReleases make were RG1101 errors for every route
// (the ResourceSet was taken to make nothing, and the Namespace was
// rendered elsewhere); the generated routes were never checked.
func TestResourceSetRenderedLikeTheOperator(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "flux-operator-resourceset")
	r := routeguard(t, dir, "flux", "build", "--all", "--report", "text", "clusters/home")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (one real error)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	errs := lines(r.stdout, ": error ")
	if len(errs) != 1 {
		t.Fatalf("want one error (the generated route to whoami-web), got:\n%s", r.stdout)
	}
	contains(t, "error", errs[0], "RG1101 HTTPRoute whoami/whoami", "Service whoami/whoami-web")
	lacks(t, "report", r.stdout, "HTTPRoute podinfo/podinfo-admin")
	preview := lines(r.stdout, "RG0001 HTTPRoute previews/preview-latest")
	if len(preview) != 1 {
		t.Fatalf("the preview route is not RG0001:\n%s", r.stdout)
	}
	contains(t, "RG0001", preview[0], "ResourceSet flux-system/previews")
	contains(t, "report", r.stdout, "RG0106 ResourceSet flux-system/previews", "ResourceSetInputProvider flux-system/pull-requests (type GitHubPullRequest)")
	contains(t, "summary", r.stderr, "rendered 2 HelmReleases, rendered 1 ResourceSets, skipped 1 (1 inputs only the cluster has)")
}
