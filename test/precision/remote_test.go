package precision

import "testing"

// One configMapGenerator file given by URL (a dashboard) made the whole
// infra Kustomization unbuilt offline: both Gateways and their routes went
// unchecked, the run passed, and the reason said "remote base". It is now
// built without that file, with a warning naming file:line and what kind
// of remote it is, and its routes are checked (one is a real error here).
func TestFluxPartlyBuiltWithoutRemoteFile(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "flux-remote-generator-file")
	r := routeguard(t, dir, "flux", "build", "--all", "--report", "text", "clusters/main")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (the envoy-admin route attaches nowhere)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if errs := lines(r.stdout, ": error "); len(errs) != 1 || len(lines(errs[0], "RG1007 HTTPRoute network/envoy-admin")) != 1 {
		t.Fatalf("want RG1007 for network/envoy-admin only:\n%s", r.stdout)
	}
	contains(t, "stderr", r.stderr,
		`routeguard: warning: Kustomization flux-system/infra (clusters/main/infra.yaml:1) is built without part of it: infrastructure/network/kustomization.yaml:12: configMapGenerator[].files "https://raw.githubusercontent.com/envoyproxy/gateway/v1.3.0/charts/gateway-addons-helm/dashboards/envoy-clusters.json" is a remote generator input (an HTTP(S) file), which routeguard does not fetch offline`,
		"; 1 built partly;")
	lacks(t, "report", r.stdout, "RG0106 Kustomization flux-system/infra", "remote base")
}

// A Kustomization on another repository's GitRepository (taken for this
// checkout only because it is the one GitRepository the cluster directory
// applies) is not built here, naming the source and --source; it was RG0101
// "no such directory in this checkout ... fix the path". Its Gateways are
// "cannot check" for the routes of this repository.
func TestOtherRepositoryPathIsNotFixThePath(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "flux-other-repo-source")
	r := routeguard(t, dir, "flux", "build", "--all", "--report", "text", "clusters/home")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	lacks(t, "report", r.stdout, "RG0101", "fix the path")
	contains(t, "report", r.stdout, "RG0106 Kustomization flux-system/platform-gateways", "GitRepository flux-system/platform, was taken for this checkout", "--source GitRepository/flux-system/platform=DIR",
		"RG0001 HTTPRoute web/web")
}
