package notifications

import (
	"strings"
	"testing"

	"github.com/argoproj/notifications-engine/pkg/services"
)

// Applications with nothing in their status: no trigger error (checked in
// triggers_test.go) and every template renders to a complete message: no
// "<no value>", no empty field, no link without a target, valid JSON.
func TestTemplatesOnEmptyApplications(t *testing.T) {
	apps := map[string]func(t *testing.T) map[string]any{
		"no status":    func(t *testing.T) map[string]any { return loadApp(t, "app-bare.yaml") },
		"empty status": func(t *testing.T) map[string]any { return loadApp(t, "app-empty-status.yaml") },
		"null status fields": func(t *testing.T) map[string]any {
			app := loadApp(t, "app-empty-status.yaml")
			app["status"] = map[string]any{"operationState": nil, "health": nil, "sync": nil, "conditions": nil, "resources": nil}
			return app
		},
		"no spec.source, empty sources": func(t *testing.T) map[string]any {
			app := loadApp(t, "app-bare.yaml")
			spec := app["spec"].(map[string]any)
			delete(spec, "source")
			spec["sources"] = []any{}
			return app
		},
	}
	templates := []string{"routeguard-comparison-error", "routeguard-route-degraded", "routeguard-routing-app-degraded", "routeguard-sync-failed", "routeguard-sync-succeeded"}
	for _, withURL := range []bool{true, false} {
		slack := newFakeSlack(t)
		o := apiOptions{}
		if withURL {
			o.argocdURL = argocdURL
		}
		a := newAPI(t, slack, o)
		errorsLogged := captureErrors(t)
		for name, mk := range apps {
			for _, tmpl := range templates {
				what := name + "/" + tmpl
				if !withURL {
					what += " (no argocdUrl)"
				}
				p := sendOne(t, a, slack, mk(t), tmpl, "bad-input")
				att := p.Attachments[0]
				for title, v := range fields(t, att) {
					if strings.TrimSpace(v) == "" {
						t.Errorf("%s: field %s is empty", what, title)
					}
				}
				if f := fields(t, att); f["Revision"] != "unknown" || f["Sync status"] != "Unknown" || f["Health"] != "Unknown" || f["Operation"] != "none" {
					t.Errorf("%s: fields = %v", what, f)
				}
				if strings.TrimSpace(str(t, att, "text")) == "" {
					t.Errorf("%s: empty attachment text", what)
				}
				texts := []string{p.Text, str(t, p.Blocks[0], "text", "text"), str(t, p.Blocks[1], "elements", 0, "text"), str(t, att, "text")}
				for _, s := range texts {
					if strings.Contains(s, "<|") || strings.Contains(s, "</") || strings.Contains(s, "|>") || strings.Contains(s, "<>") {
						t.Errorf("%s: broken link in %q", what, s)
					}
				}
				link, _ := att["title_link"].(string)
				if withURL && link != argocdURL+"/applications/argocd/fresh-app" {
					t.Errorf("%s: title_link = %q", what, link)
				}
				if !withURL {
					if link != "" {
						t.Errorf("%s: title_link %q without argocdUrl", what, link)
					}
					if want := "*fresh-app*"; !strings.Contains(p.Text, want) {
						t.Errorf("%s: text %q does not name the app as %s", what, p.Text, want)
					}
				}
				if err := a.Send(mk(t), []string{tmpl}, services.Destination{Service: "slack-webhook"}); err != nil {
					t.Errorf("%s via webhook: %v", what, err)
				}
				for _, h := range slack.takeHooks() {
					if strings.Contains(h.Raw, "no value") {
						t.Errorf("%s: webhook body renders a missing value: %s", what, h.Raw)
					}
				}
			}
		}
		if errs := errorsLogged(); len(errs) > 0 {
			t.Errorf("Argo CD logged errors: %v", errs)
		}
	}
}
