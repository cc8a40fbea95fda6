package notifications

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/argoproj/notifications-engine/pkg/api"
	"github.com/argoproj/notifications-engine/pkg/services"
)

const (
	appURL     = argocdURL + "/applications/argocd/storefront-routing"
	appLink    = "<" + appURL + "|storefront-routing>"
	failedRev  = "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d"
	failedLink = "<https://github.com/acme/gitops/commit/" + failedRev + "|9e8d7c6>"
)

// sendOne renders template for app and sends it through Argo CD's Slack
// service to channel; it returns the one chat.postMessage the fake received.
func sendOne(t *testing.T, a api.API, slack *fakeSlack, app map[string]any, template, channel string) slackPost {
	t.Helper()
	if err := a.Send(app, []string{template}, services.Destination{Service: "slack", Recipient: channel}); err != nil {
		t.Fatalf("send %s: %v", template, err)
	}
	posts := slack.takePosts()
	if len(posts) != 1 {
		t.Fatalf("send %s: fake Slack got %d posts, want 1", template, len(posts))
	}
	p := posts[0]
	if p.Channel != channel {
		t.Errorf("channel = %q, want %q", p.Channel, channel)
	}
	if p.Auth != "Bearer "+slackToken && p.FormToken != slackToken {
		t.Errorf("token from argocd-notifications-secret not sent (auth %q, form %q)", p.Auth, p.FormToken)
	}
	if strings.Contains(p.Raw, "no value") || strings.Contains(p.Raw, "%3Cnil%3E") {
		t.Errorf("%s renders a missing value: %s", template, p.Raw)
	}
	if len(p.Attachments) != 1 || len(p.Blocks) != 2 {
		t.Fatalf("%s: %d attachments and %d blocks, want 1 and 2", template, len(p.Attachments), len(p.Blocks))
	}
	return p
}

// fields returns an attachment's fields as title -> value.
func fields(t *testing.T, att map[string]any) map[string]string {
	t.Helper()
	out := map[string]string{}
	list, _ := att["fields"].([]any)
	for i := range list {
		out[str(t, list, i, "title")] = str(t, list, i, "value")
	}
	return out
}

// checkEscaped asserts that raw (mrkdwn as Slack received it) holds no bare
// control characters outside links and decodes back to want.
func checkEscaped(t *testing.T, what, raw, want string) {
	t.Helper()
	if strings.ContainsAny(raw, "<>") {
		t.Errorf("%s has a bare < or >: %q", what, raw)
	}
	if strings.Contains(strings.NewReplacer("&amp;", "", "&lt;", "", "&gt;", "").Replace(raw), "&") {
		t.Errorf("%s has a bare &: %q", what, raw)
	}
	if got := unescapeSlack(raw); got != want {
		t.Errorf("%s = %q\nwant %q", what, got, want)
	}
}

func TestSlackSyncFailed(t *testing.T) {
	slack := newFakeSlack(t)
	a := newAPI(t, slack, apiOptions{argocdURL: argocdURL})
	p := sendOne(t, a, slack, loadApp(t, "app-sync-failed.yaml"), "routeguard-sync-failed", "sync-failed")

	if want := ":x: Sync failed: " + appLink + " (web-team, revision " + failedLink + ")"; p.Text != want {
		t.Errorf("text = %q\nwant %q", p.Text, want)
	}
	if got, want := str(t, p.Blocks[0], "text", "text"), ":x: Sync failed: "+appLink; got != want {
		t.Errorf("section = %q, want %q", got, want)
	}
	if got, want := str(t, p.Blocks[1], "elements", 0, "text"), "Project *web-team*  ·  revision "+failedLink+"  ·  sync OutOfSync  ·  health Healthy"; got != want {
		t.Errorf("context = %q\nwant %q", got, want)
	}
	att := p.Attachments[0]
	if str(t, att, "color") != "#E96D76" || str(t, att, "title_link") != appURL || str(t, att, "title") != "storefront-routing" {
		t.Errorf("attachment head = %v / %v / %v", att["color"], att["title_link"], att["title"])
	}
	wantFields := map[string]string{
		"Project": "web-team", "Revision": failedLink, "Sync status": "OutOfSync", "Health": "Healthy",
		"Operation": "Failed", "Repository": "git@github.com:acme/gitops.git",
	}
	if got := fields(t, att); fmt.Sprint(got) != fmt.Sprint(wantFields) {
		t.Errorf("fields = %v\nwant %v", got, wantFields)
	}
	checkEscaped(t, "attachment text", str(t, att, "text"), nasty+"\n• HTTPRoute web/"+nastyName+": "+nasty)
	if !strings.Contains(str(t, att, "text"), "&lt;v2&gt; &amp; `canary`") {
		t.Errorf("attachment text not escaped as Slack wants: %q", str(t, att, "text"))
	}
	if mk, _ := att["mrkdwn_in"].([]any); fmt.Sprint(mk) != "[text fields]" {
		t.Errorf("mrkdwn_in = %v", mk)
	}
}

func TestSlackComparisonErrorShowsRouteguardFindings(t *testing.T) {
	slack := newFakeSlack(t)
	a := newAPI(t, slack, apiOptions{argocdURL: argocdURL})
	report := comparisonError(t)
	lines := strings.Split(report, "\n")
	summary := lines[0][strings.Index(lines[0], "routeguard: "):]

	real, err := os.ReadFile(filepath.Join("..", "cmp", "testdata", "comparison-error.txt"))
	if err != nil {
		t.Fatalf("the ComparisonError captured from argocd-cmp-server by compat/argocd/cmp: %v", err)
	}
	realLines := strings.Split(strings.TrimRight(string(real), "\n"), "\n")
	if len(realLines) < 2 || !strings.Contains(realLines[0], "routeguard: ") {
		t.Fatalf("captured ComparisonError has no routeguard report:\n%s", real)
	}
	realSummary := realLines[0][strings.Index(realLines[0], "routeguard: "):]
	cases := []struct {
		name    string
		message string
		want    string
	}{
		{"routeguard report", report, "*" + summary + "*\n• " + strings.Join(lines[1:], "\n• ")},
		{"report captured from argocd-cmp-server", string(real), "*" + realSummary + "*\n• " + strings.Join(realLines[1:], "\n• ")},
		{
			"report past routeguard's own limit",
			lines[0] + strings.Repeat("\n"+lines[1], 20) + "\n... and 7 more\n",
			"*" + summary + "*" + strings.Repeat("\n• "+lines[1], 5) + "\n… and 22 more findings",
		},
		{
			"more than five findings",
			lines[0] + strings.Repeat("\n"+lines[1], 8),
			"*" + summary + "*" + strings.Repeat("\n• "+lines[1], 5) + "\n… and 3 more findings",
		},
		{
			"not routeguard's format",
			"rpc error: code = Unknown desc = Manifest generation error (cached): `kustomize build <path>` failed exit status 1: Error: \"a\" & 'b'\nline two",
			"rpc error: code = Unknown desc = Manifest generation error (cached): `kustomize build <path>` failed exit status 1: Error: \"a\" & 'b'\nline two",
		},
		{
			"long message is cut",
			strings.Repeat("x", 2000),
			strings.Repeat("x", 1500) + "…",
		},
	}
	for _, c := range cases {
		app := loadApp(t, "app-comparison-error.yaml")
		set(app, []any{map[string]any{"type": "ComparisonError", "message": c.message}}, "status", "conditions")
		p := sendOne(t, a, slack, app, "routeguard-comparison-error", "comparison-error")
		att := p.Attachments[0]
		if got := unescapeSlack(str(t, att, "text")); got != c.want {
			t.Errorf("%s: text = %q\nwant %q", c.name, got, c.want)
		}
		if str(t, att, "color") != "#D93F0B" {
			t.Errorf("%s: color = %v", c.name, att["color"])
		}
		f := fields(t, att)
		if f["Revision"] != "unknown" || f["Sync status"] != "Unknown" || f["Operation"] != "none" {
			t.Errorf("%s: fields = %v", c.name, f)
		}
		if got := str(t, p.Blocks[0], "text", "text"); got != ":no_entry: Routing change refused: "+appLink {
			t.Errorf("%s: section = %q", c.name, got)
		}
	}
}

func TestSlackRouteDegradedListsRoutingResources(t *testing.T) {
	slack := newFakeSlack(t)
	a := newAPI(t, slack, apiOptions{argocdURL: argocdURL})
	p := sendOne(t, a, slack, loadApp(t, "app-routes-degraded.yaml"), "routeguard-route-degraded", "route-degraded")
	att := p.Attachments[0]
	checkEscaped(t, "attachment text", str(t, att, "text"),
		"• HTTPRoute web/"+nastyName+": "+nasty+"\n"+
			"• VirtualService web/storefront: host storefront-v2.web.svc.cluster.local has no matching DestinationRule subset v2")
	if str(t, att, "color") != "#F4C030" {
		t.Errorf("color = %v", att["color"])
	}
	if f := fields(t, att); f["Health"] != "Degraded" || f["Revision"] != failedLink {
		t.Errorf("fields = %v", f)
	}

	// Degraded only by a Deployment: the template (if sent anyway) says so
	// and names no routing resource.
	p = sendOne(t, a, slack, loadApp(t, "app-deployment-degraded.yaml"), "routeguard-route-degraded", "route-degraded")
	if got := str(t, p.Attachments[0], "text"); got != "No routing resource is degraded any more.\n(1 other degraded resources not listed)" {
		t.Errorf("deployment-only text = %q", got)
	}
}

// On Argo CD 3.x by default the Application cannot say which resource is
// degraded: the message lists the routing resources and how to get more.
func TestSlackRoutingAppDegradedOnV3(t *testing.T) {
	slack := newFakeSlack(t)
	a := newAPI(t, slack, apiOptions{argocdURL: argocdURL})
	p := sendOne(t, a, slack, loadApp(t, "app-v3-routes-degraded.yaml"), "routeguard-routing-app-degraded", "route-degraded")
	att := p.Attachments[0]
	checkEscaped(t, "attachment text", str(t, att, "text"), routingAppDegradedText)
	if str(t, att, "color") != "#F4C030" {
		t.Errorf("color = %v", att["color"])
	}
	if f := fields(t, att); f["Health"] != "Degraded" || f["Revision"] != failedLink {
		t.Errorf("fields = %v", f)
	}
	if got := str(t, p.Blocks[0], "text", "text"); got != ":warning: Degraded, with routing resources: "+appLink {
		t.Errorf("section = %q", got)
	}
	// More than ten routing resources: ten are named.
	app := loadApp(t, "app-v3-routes-degraded.yaml")
	var many []any
	for i := 0; i < 13; i++ {
		many = append(many, map[string]any{"group": "gateway.networking.k8s.io", "version": "v1", "kind": "HTTPRoute", "namespace": "web", "name": fmt.Sprintf("r%02d", i), "status": "Synced"})
	}
	set(app, many, "status", "resources")
	p = sendOne(t, a, slack, app, "routeguard-routing-app-degraded", "route-degraded")
	text := str(t, p.Attachments[0], "text")
	if !strings.Contains(text, "• HTTPRoute web/r09\n… and 3 more routing resources\n") || strings.Contains(text, "r10") {
		t.Errorf("13 routes: text = %q", text)
	}
}

func TestSlackSyncSucceededListsRoutingResources(t *testing.T) {
	slack := newFakeSlack(t)
	a := newAPI(t, slack, apiOptions{argocdURL: argocdURL})
	p := sendOne(t, a, slack, loadApp(t, "app-synced-healthy.yaml"), "routeguard-sync-succeeded", "sync-succeeded")
	att := p.Attachments[0]
	if got := str(t, att, "text"); got != "• HTTPRoute web/storefront\n• VirtualService web/storefront" {
		t.Errorf("text = %q", got)
	}
	if str(t, att, "color") != "#18BE52" {
		t.Errorf("color = %v", att["color"])
	}
	if got := str(t, p.Blocks[0], "text", "text"); got != ":white_check_mark: Routing synced: "+appLink {
		t.Errorf("section = %q", got)
	}
}
