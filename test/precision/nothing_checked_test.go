package precision

import "testing"

// RG0100 is an error only when the inputs hold routing that was not built:
// here web's kustomization lists a service.yaml that is not there (it
// fails to build) and the wiki HelmRelease's route values need a chart out
// of reach offline; the summary counts the routing objects checked and
// names, per unbuilt node, the routing it holds. A Kustomization built
// alone that routes nothing (a CronJob) says so at info — a per-app CI job
// failed on every such app of a repository (373 of 432 errors raised).
func TestNothingCheckedOnlyWhenRoutingWasNotBuilt(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "flux-routing-unbuilt")
	r := routeguard(t, dir, "flux", "build", "--all", "--report", "text", "clusters/home")
	if r.code != 1 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rg0100 := lines(r.stdout, "RG0100")
	if len(rg0100) != 1 {
		t.Fatalf("want one RG0100:\n%s", r.stdout)
	}
	contains(t, "RG0100", rg0100[0], "error RG0100", "Kustomization flux-system/web (apps/web/httproute.yaml)", "HelmRelease flux-system/wiki (spec.values.route)", "none of it was checked")
	contains(t, "stderr", r.stderr, ", 0 routing objects checked",
		"routeguard: not built: Kustomization flux-system/web (clusters/home/apps.yaml:1): fails to build; the routing it holds was not checked: apps/web/httproute.yaml",
		"routeguard: not built: HelmRelease flux-system/wiki (clusters/home/apps.yaml:35): not built here (chart needs the network); the routing it holds was not checked: spec.values.route")

	r = routeguard(t, dir, "flux", "build", "--name", "cron", "--report", "text", "clusters/home")
	if r.code != 0 {
		t.Fatalf("cron alone: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	contains(t, "cron alone", r.stdout, "info RG0100", "it routes nothing")
}
