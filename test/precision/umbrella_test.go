package precision

import "testing"

// An umbrella chart whose dependency is not vendored (a monitoring stack
// from its chart repository, offline) drops no more than the dependency:
// the chart's own HTTPRoute is checked (its sectionName names no listener
// here, a real error), the Service the dependency would make is "cannot
// check", and a warning says what was left out — in Argo CD builds,
// analyze and Flux HelmReleases with charts in Git. The whole app was
// skipped before (exit 0), analyze refused the chart, and flux build
// failed the HelmRelease (RG0102).
func TestUmbrellaChartRendersItsOwnTemplates(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "umbrella-chart")
	for _, tc := range []struct {
		name string
		args []string
		code int
		warn string
	}{
		{"argocd analyze", []string{"argocd", "analyze", "argocd"}, 1, "Application argocd/platform: partly rendered: chart charts/platform is rendered without its dependencies kube-prometheus-stack 70.4.2"},
		{"analyze", []string{"analyze", "charts/platform"}, 0, "charts/platform: rendered without its chart dependencies"},
		{"flux build", []string{"flux", "build", "--all", "--report", "text", "clusters/home"}, 1, "HelmRelease monitoring/platform (clusters/home/platform.yaml:1) is built without part of it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := routeguard(t, dir, tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", r.code, tc.code, r.stdout, r.stderr)
			}
			contains(t, "stderr", r.stderr, "routeguard: warning: "+tc.warn)
			if len(lines(r.stdout, "RG0001 HTTPRoute", "/grafana", "platform-grafana")) != 1 {
				t.Errorf("the dependency's Service is not RG0001:\n%s", r.stdout)
			}
			if tc.code == 1 && len(lines(r.stdout, "error RG1002 HTTPRoute monitoring/grafana")) != 1 {
				t.Errorf("the chart's own route was not checked:\n%s", r.stdout)
			}
		})
	}
}

// An umbrella chart that is only its dependency renders nothing here:
// analyze says it was not checked and why (a warning), without failing the
// run (exit 2 "vendor the dependencies") or calling it empty (RG0007).
func TestUmbrellaChartOfDependenciesOnly(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "umbrella-chart")
	r := routeguard(t, dir, "analyze", "charts/monitoring")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	contains(t, "stderr", r.stderr, "routeguard: warning: charts/monitoring: not checked: the chart renders nothing without its dependencies", "routeguard analyze does not fetch chart dependencies")
	lacks(t, "report", r.stdout, "RG0007")
}
