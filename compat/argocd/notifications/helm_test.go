package notifications

import (
	"fmt"
	"testing"
)

// Installed through the argo-cd Helm chart's values, the bundle gives Argo CD
// the same triggers and the same Slack messages as the Kustomize patch.
func TestHelmValuesBehaveLikeThePatch(t *testing.T) {
	if got, want := len(helmData(t)), len(bundleData(t)); got != want || got == 0 {
		t.Fatalf("Helm values carry %d keys, the patch %d", got, want)
	}
	for k, v := range bundleData(t) {
		if helmData(t)[k] != v {
			t.Errorf("%s differs between the Helm values and the patch", k)
		}
	}
	slackPatch, slackHelm := newFakeSlack(t), newFakeSlack(t)
	viaPatch := newAPI(t, slackPatch, apiOptions{argocdURL: argocdURL})
	viaHelm := newAPI(t, slackHelm, apiOptions{argocdURL: argocdURL, helm: true})
	for _, c := range []struct{ fixture, template string }{
		{"app-sync-failed.yaml", "routeguard-sync-failed"},
		{"app-comparison-error.yaml", "routeguard-comparison-error"},
		{"app-routes-degraded.yaml", "routeguard-route-degraded"},
		{"app-v3-routes-degraded.yaml", "routeguard-routing-app-degraded"},
		{"app-synced-healthy.yaml", "routeguard-sync-succeeded"},
	} {
		app := loadApp(t, c.fixture)
		if a, b := fired(t, viaPatch, app), fired(t, viaHelm, app); fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("%s: patch fires %v, Helm values fire %v", c.fixture, a, b)
		}
		p := sendOne(t, viaPatch, slackPatch, app, c.template, "helm-parity-patch")
		h := sendOne(t, viaHelm, slackHelm, app, c.template, "helm-parity-helm")
		if fmt.Sprint(p.Attachments, p.Blocks, p.Text) != fmt.Sprint(h.Attachments, h.Blocks, h.Text) {
			t.Errorf("%s: the Helm-installed template sends a different message", c.template)
		}
	}
}
