package precision

import "testing"

// One configMapGenerator file given by URL (a dashboard) made the whole
// infra Kustomization unbuilt offline: both Gateways and their routes went
// unchecked, the run passed, and the reason said "remote base". It is now
// built without that file, with a warning naming file:line and what kind
// of remote it is, and its routes are checked (one is a real error here).
func TestFluxPartlyBuiltWithoutRemoteFile(t *testing.T) {
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
