package notifications

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/argoproj/notifications-engine/pkg/services"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// catalogData is Argo CD's notifications catalog as the Argo CD module this
// package builds against ships it (notifications_catalog/install.yaml: the
// argocd-notifications-cm data users apply from Argo CD's release).
func catalogData(t testing.TB) map[string]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/argoproj/argo-cd/v3").Output()
	if err != nil {
		t.Fatalf("locate the argo-cd module: %v", err)
	}
	p := filepath.Join(strings.TrimSpace(string(out)), "notifications_catalog", "install.yaml")
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(raw, &cm); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	if cm.Name != cmName || len(cm.Data) == 0 {
		t.Fatalf("%s: ConfigMap %q with %d keys, want %s with data", p, cm.Name, len(cm.Data), cmName)
	}
	return cm.Data
}

// overCatalog is argocd-notifications-cm as installed: Argo CD's catalog,
// then routeguard's bundle applied over it (a strategic-merge patch of data:
// the keys of both, the patch's winning where they are the same).
func overCatalog(t testing.TB, bundle map[string]string) map[string]string {
	t.Helper()
	data := catalogData(t)
	for k, v := range bundle {
		data[k] = v
	}
	return data
}

func withPrefix(data map[string]string, prefix string) []string {
	var out []string
	for k := range data {
		if strings.HasPrefix(k, prefix) {
			out = append(out, strings.TrimPrefix(k, prefix))
		}
	}
	sort.Strings(out)
	return out
}

// TestBundleLeavesTheCatalogAlone: routeguard's bundle (the Kustomize patch
// and the Helm values alike) has no key of Argo CD's catalog, so applying it
// over the catalog leaves every catalog trigger and template as it was:
// notifications-engine loads both, every catalog trigger gives the same
// result with and without the bundle on every fixture Application, every
// catalog template sends the same Slack message, and routeguard's triggers
// fire as they do without the catalog.
func TestBundleLeavesTheCatalogAlone(t *testing.T) {
	catalog := catalogData(t)
	catalogTriggers := withPrefix(catalog, "trigger.")
	for _, want := range []string{"on-created", "on-deleted", "on-deployed", "on-health-degraded", "on-sync-failed", "on-sync-running", "on-sync-status-unknown", "on-sync-succeeded"} {
		if !slices.Contains(catalogTriggers, want) {
			t.Fatalf("the catalog has no trigger %s (it has %v): update this test to Argo CD's catalog", want, catalogTriggers)
		}
	}
	for _, b := range []struct {
		name string
		data map[string]string
	}{{"kustomize patch", bundleData(t)}, {"helm values", helmData(t)}} {
		t.Run(b.name, func(t *testing.T) {
			for k := range b.data {
				if _, ok := catalog[k]; ok {
					t.Errorf("the bundle sets %s, which replaces the catalog's", k)
				}
			}
			slackAlone, slackBoth, slackOurs := newFakeSlack(t), newFakeSlack(t), newFakeSlack(t)
			alone := newAPI(t, slackAlone, apiOptions{argocdURL: argocdURL, data: catalog})
			both := newAPI(t, slackBoth, apiOptions{argocdURL: argocdURL, data: overCatalog(t, b.data)})
			ours := newAPI(t, slackOurs, apiOptions{argocdURL: argocdURL, data: b.data})
			entries, err := os.ReadDir("testdata")
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if !strings.HasPrefix(e.Name(), "app-") {
					continue
				}
				app := loadApp(t, e.Name())
				for _, name := range catalogTriggers {
					want, errWant := alone.RunTrigger(name, app)
					got, errGot := both.RunTrigger(name, app)
					if errWant != nil || errGot != nil || !reflect.DeepEqual(got, want) {
						t.Errorf("%s on %s: with the bundle %+v (%v), catalog alone %+v (%v)", name, e.Name(), got, errGot, want, errWant)
					}
				}
				if got, want := fired(t, both, app), fired(t, ours, app); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: routeguard's triggers over the catalog fired %v, without it %v", e.Name(), got, want)
				}
			}
			app := loadApp(t, "app-synced-healthy.yaml")
			for _, tmpl := range withPrefix(catalog, "template.") {
				dest := services.Destination{Service: "slack", Recipient: "deploys"}
				if err := alone.Send(app, []string{tmpl}, dest); err != nil {
					t.Fatalf("catalog alone, %s: %v", tmpl, err)
				}
				if err := both.Send(app, []string{tmpl}, dest); err != nil {
					t.Fatalf("with the bundle, %s: %v", tmpl, err)
				}
				want, got := slackAlone.takePosts(), slackBoth.takePosts()
				if len(want) != 1 || len(got) != 1 {
					t.Fatalf("%s: %d and %d posts, want one each", tmpl, len(want), len(got))
				}
				want[0].TS, got[0].TS = "", ""
				if !reflect.DeepEqual(got[0], want[0]) {
					t.Errorf("%s sends\n%+v\nwith the bundle, and\n%+v\nwithout", tmpl, got[0], want[0])
				}
			}
		})
	}
}

// TestCatalogSubscriptionStillFires is the case issue 30 reported: an app
// without routing subscribed to the catalog's on-sync-succeeded keeps
// getting the catalog's message once routeguard's bundle is applied, and
// routeguard's own trigger stays quiet for it.
func TestCatalogSubscriptionStillFires(t *testing.T) {
	slack := newFakeSlack(t)
	a := newAPI(t, slack, apiOptions{argocdURL: argocdURL, data: overCatalog(t, bundleData(t))})
	app := loadApp(t, "app-plain-synced.yaml")
	res, err := a.RunTrigger("on-sync-succeeded", app)
	if err != nil || len(res) != 1 || !res[0].Triggered || !slices.Equal(res[0].Templates, []string{"app-sync-succeeded"}) {
		t.Fatalf("catalog on-sync-succeeded over routeguard's bundle: %+v, %v; want it fired with app-sync-succeeded", res, err)
	}
	if err := a.Send(app, res[0].Templates, services.Destination{Service: "slack", Recipient: "deploys"}); err != nil {
		t.Fatal(err)
	}
	posts := slack.takePosts()
	if len(posts) != 1 || !strings.Contains(posts[0].Text, "has been successfully synced") {
		t.Errorf("catalog message: %+v", posts)
	}
	if got := fired(t, a, app); len(got) != 0 {
		t.Errorf("routeguard's triggers fired for an app without routing: %v", got)
	}
}
