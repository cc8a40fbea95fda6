package precision

import "testing"

// A home lab that installs fluxcd-kustomize-mutating-webhook: the webhook
// writes the keys of cluster-config and cluster-secrets into every Flux
// Kustomization at run time, so an app Kustomization without postBuild
// still has ${CLUSTER_DOMAIN} and ${SECRET_DOMAIN} substituted. They were
// left as written (RG5001 for "web.${SECRET_DOMAIN}") or, with a postBuild
// of the app's own, strict-substitution errors (32 false errors on one
// public repository).
func TestSubstitutionWebhookSetsVariables(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "flux-substitution-webhook")
	r := routeguard(t, dir, "flux", "build", "--all", "--report", "text", "kubernetes/flux/cluster")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	lacks(t, "report", r.stdout, "RG5001", "RG0101", "${")
	contains(t, "stderr", r.stderr, "note: HelmRelease flux-system/kustomize-mutating-webhook is a mutating webhook that writes postBuild variables into every Flux Kustomization at run time (from ConfigMap flux-system/cluster-config, Secret flux-system/cluster-secrets)")
	out := routeguard(t, dir, "flux", "build", "--all", "--analyze=false", "kubernetes/flux/cluster").stdout
	contains(t, "manifests", out, "- web.home.example.com", "- web.routeguard-unset-secret-domain", "hostname: \"*.home.example.com\"")
}
