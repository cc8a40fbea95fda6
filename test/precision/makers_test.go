package precision

import "testing"

// app-template HelmReleases whose charts are out of reach offline: a
// route to "jellyfin-dlna" (the chart's second Service, named after the
// release) names HelmRelease media/jellyfin as the likeliest maker, not
// the namespace's first unrendered release (bazarr); a TCPRoute to a
// Service beside CloudNativePG resources (a Pooler makes its own) cannot
// be checked, never RG1101: any custom resource routeguard does not model
// may make Services in its namespace.
func TestLikeliestMakerNamedFirst(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "flux-app-template-makers")
	r := routeguard(t, dir, "flux", "build", "--all", "--report", "text", "kubernetes/flux/cluster")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	route := lines(r.stdout, "RG0001 HTTPRoute media/jellyfin")
	if len(route) != 1 {
		t.Fatalf("no RG0001 for the jellyfin route:\n%s", r.stdout)
	}
	contains(t, "RG0001", route[0], "(HelmRelease media/jellyfin was not built here (chart needs the network); and 1 more)")
	pg := lines(r.stdout, "TCPRoute database/postgres")
	if len(pg) != 1 {
		t.Fatalf("want one finding for the postgres route:\n%s", r.stdout)
	}
	contains(t, "finding", pg[0], "warning RG0001", "Cluster database/postgres16 (and 1 more custom resources there)")
}
