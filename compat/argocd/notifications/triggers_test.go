package notifications

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/argoproj/notifications-engine/pkg/triggers"
	"sigs.k8s.io/yaml"
)

var routeguardTriggers = []string{"on-routeguard-comparison-error", "on-routeguard-route-degraded", "on-routeguard-sync-failed", "on-routeguard-sync-succeeded"}

// routeTemplates are the templates each trigger may send: on-routeguard-route-degraded
// has one condition per place Argo CD keeps per-resource health.
var routeTemplates = map[string][]string{
	"on-routeguard-comparison-error": {"routeguard-comparison-error"},
	"on-routeguard-route-degraded":   {"routeguard-route-degraded", "routeguard-routing-app-degraded"},
	"on-routeguard-sync-failed":      {"routeguard-sync-failed"},
	"on-routeguard-sync-succeeded":   {"routeguard-sync-succeeded"},
}

// fired runs every routeguard trigger on app through the API and returns
// trigger -> oncePer for those that fired; for on-routeguard-route-degraded the oncePer
// is prefixed with the template sent ("<template>:").
func fired(t *testing.T, a interface {
	RunTrigger(string, map[string]any) ([]triggers.ConditionResult, error)
}, app map[string]any) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range routeguardTriggers {
		res, err := a.RunTrigger(name, app)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(res) != len(routeTemplates[name]) {
			t.Fatalf("%s: %d conditions, want %d", name, len(res), len(routeTemplates[name]))
		}
		for i, r := range res {
			if want := routeTemplates[name][i]; strings.Join(r.Templates, ",") != want {
				t.Errorf("%s condition %d sends %v, want %s", name, i, r.Templates, want)
			}
			if !r.Triggered {
				continue
			}
			if _, twice := out[name]; twice {
				t.Errorf("%s: two conditions fired at once", name)
			}
			out[name] = r.OncePer
			if name == "on-routeguard-route-degraded" {
				out[name] = r.Templates[0] + ":" + r.OncePer
			}
		}
	}
	return out
}

func TestTriggersFireOnTheRightApplications(t *testing.T) {
	slack := newFakeSlack(t)
	a := newAPI(t, slack, apiOptions{argocdURL: argocdURL})
	errorsLogged := captureErrors(t)
	const failedRev = "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d"
	cases := []struct {
		fixture string
		edit    func(map[string]any)
		want    map[string]string // trigger -> oncePer
	}{
		{fixture: "app-synced-healthy.yaml", want: map[string]string{"on-routeguard-sync-succeeded": "4f2c1d9e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e"}},
		{fixture: "app-plain-synced.yaml", want: map[string]string{}},
		{fixture: "app-sync-failed.yaml", want: map[string]string{"on-routeguard-sync-failed": failedRev}},
		{
			fixture: "app-sync-failed.yaml",
			edit: func(app map[string]any) { // failed before any revision was synced
				delete(app["status"].(map[string]any)["operationState"].(map[string]any), "syncResult")
			},
			want: map[string]string{"on-routeguard-sync-failed": "2026-11-30T03:00:00Z"},
		},
		{
			fixture: "app-sync-failed.yaml",
			edit:    func(app map[string]any) { set(app, "Error", "status", "operationState", "phase") },
			want:    map[string]string{"on-routeguard-sync-failed": failedRev},
		},
		{
			fixture: "app-sync-failed.yaml",
			edit:    func(app map[string]any) { set(app, "Running", "status", "operationState", "phase") },
			want:    map[string]string{},
		},
		{fixture: "app-comparison-error.yaml", want: map[string]string{"on-routeguard-comparison-error": ""}},
		{fixture: "app-routes-degraded.yaml", want: map[string]string{"on-routeguard-route-degraded": "routeguard-route-degraded:" + failedRev, "on-routeguard-sync-succeeded": failedRev}},
		// Argo CD 3.x by default: no per-resource health in the Application.
		{fixture: "app-v3-routes-degraded.yaml", want: map[string]string{"on-routeguard-route-degraded": "routeguard-routing-app-degraded:" + failedRev, "on-routeguard-sync-succeeded": failedRev}},
		{
			// Never synced by an operation: the revision Argo CD compared.
			fixture: "app-v3-routes-degraded.yaml",
			edit: func(app map[string]any) {
				delete(app["status"].(map[string]any), "operationState")
				set(app, "1234567890123456789012345678901234567890", "status", "sync", "revision")
			},
			want: map[string]string{"on-routeguard-route-degraded": "routeguard-routing-app-degraded:1234567890123456789012345678901234567890"},
		},
		{
			fixture: "app-v3-routes-degraded.yaml",
			edit:    func(app map[string]any) { set(app, "Healthy", "status", "health", "status") },
			want:    map[string]string{"on-routeguard-sync-succeeded": failedRev},
		},
		{
			fixture: "app-v3-routes-degraded.yaml",
			edit:    func(app map[string]any) { set(app, "Progressing", "status", "health", "status") },
			want:    map[string]string{"on-routeguard-sync-succeeded": failedRev},
		},
		{
			fixture: "app-v3-routes-degraded.yaml",
			edit: func(app map[string]any) { // Degraded, but no routing resource in the app
				set(app, []any{map[string]any{"group": "apps", "version": "v1", "kind": "Deployment", "namespace": "web", "name": "storefront", "status": "Synced"}}, "status", "resources")
			},
			want: map[string]string{},
		},
		{
			fixture: "app-v3-routes-degraded.yaml",
			edit: func(app map[string]any) { // 3.x with controller.resource.health.persist: health inline again
				delete(app["status"].(map[string]any), "resourceHealthSource")
				for _, r := range app["status"].(map[string]any)["resources"].([]any) {
					set(r.(map[string]any), "Healthy", "health", "status")
				}
				set(app["status"].(map[string]any)["resources"].([]any)[2].(map[string]any), "Degraded", "health", "status")
			},
			want: map[string]string{"on-routeguard-sync-succeeded": failedRev},
		},
		{fixture: "app-deployment-degraded.yaml", want: map[string]string{"on-routeguard-sync-succeeded": failedRev}},
		{
			fixture: "app-routes-degraded.yaml",
			edit: func(app map[string]any) { // a degraded route but the app is not (yet) Degraded
				set(app, "Progressing", "status", "health", "status")
			},
			want: map[string]string{"on-routeguard-sync-succeeded": failedRev},
		},
		{fixture: "app-bare.yaml", want: map[string]string{}},
		{fixture: "app-empty-status.yaml", want: map[string]string{}},
		{
			fixture: "app-empty-status.yaml",
			edit: func(app map[string]any) { // explicit nulls everywhere
				app["status"] = map[string]any{"operationState": nil, "health": nil, "sync": nil, "conditions": nil, "resources": nil}
			},
			want: map[string]string{},
		},
		{
			fixture: "app-empty-status.yaml",
			edit: func(app map[string]any) { // resources without health
				set(app, []any{map[string]any{"kind": "HTTPRoute", "name": "x"}}, "status", "resources")
				set(app, "Degraded", "status", "health", "status")
			},
			want: map[string]string{},
		},
	}
	for _, c := range cases {
		app := loadApp(t, c.fixture)
		if c.edit != nil {
			c.edit(app)
		}
		got := fired(t, a, app)
		if !equalMaps(got, c.want) {
			t.Errorf("%s: fired %v, want %v", c.fixture, got, c.want)
		}
		if errs := errorsLogged(); len(errs) > 0 {
			t.Errorf("%s: Argo CD logged trigger errors: %v", c.fixture, errs)
		}
	}
}

// on-routeguard-sync-failed fires exactly when Argo CD's catalog trigger
// on-sync-failed fires (read from the Argo CD module this test builds against).
func TestSyncFailedMatchesTheCatalogTrigger(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/argoproj/argo-cd/v3").Output()
	if err != nil {
		t.Fatalf("locate the argo-cd module: %v", err)
	}
	raw, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "notifications_catalog", "triggers", "on-sync-failed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var catalog []triggers.Condition
	if err := yaml.Unmarshal(raw, &catalog); err != nil {
		t.Fatal(err)
	}
	slack := newFakeSlack(t)
	a := newAPI(t, slack, apiOptions{argocdURL: argocdURL, extra: map[string]string{"trigger.catalog-on-sync-failed": string(raw)}})
	phases := []string{"Succeeded", "Failed", "Error", "Running", "Terminating"}
	for _, fixture := range []string{"app-sync-failed.yaml", "app-synced-healthy.yaml", "app-routes-degraded.yaml"} {
		for _, phase := range phases {
			app := loadApp(t, fixture)
			set(app, phase, "status", "operationState", "phase")
			ours, err := a.RunTrigger("on-routeguard-sync-failed", app)
			if err != nil {
				t.Fatal(err)
			}
			theirs, err := a.RunTrigger("catalog-on-sync-failed", app)
			if err != nil {
				t.Fatal(err)
			}
			if ours[0].Triggered != theirs[0].Triggered {
				t.Errorf("%s phase %s: ours fired=%v, catalog fired=%v", fixture, phase, ours[0].Triggered, theirs[0].Triggered)
			}
		}
	}
	if len(catalog) != 1 || !strings.Contains(catalog[0].When, "phase in ['Error', 'Failed']") {
		t.Fatalf("catalog trigger changed: %+v", catalog)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
