package notifications

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/argoproj/notifications-engine/pkg/services"
)

// captured records what notifications-engine hands a service: the email
// service sends exactly Email.Subject and Email.Body (or Message), which
// needs an SMTP server that cannot run here.
type captured struct {
	mu  sync.Mutex
	got []services.Notification
}

func (c *captured) Send(n services.Notification, _ services.Destination) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, n)
	return nil
}

func (c *captured) take(t *testing.T) services.Notification {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.got) != 1 {
		t.Fatalf("%d notifications, want 1", len(c.got))
	}
	n := c.got[0]
	c.got = nil
	return n
}

// fakeTeams stands in for a Microsoft Teams incoming webhook on loopback:
// it records each card and answers "1", as Teams does.
type fakeTeams struct {
	srv   *httptest.Server
	mu    sync.Mutex
	cards []map[string]any
	raw   []string
}

func newFakeTeams(t *testing.T) *fakeTeams {
	f := &fakeTeams{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var card map[string]any
		if err := json.Unmarshal(body, &card); err != nil {
			http.Error(w, "not JSON: "+err.Error(), http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.cards = append(f.cards, card)
		f.raw = append(f.raw, string(body))
		f.mu.Unlock()
		io.WriteString(w, "1")
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeTeams) take(t *testing.T) (map[string]any, string) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.cards) != 1 {
		t.Fatalf("fake Teams got %d cards, want 1", len(f.cards))
	}
	c, r := f.cards[0], f.raw[0]
	f.cards, f.raw = nil, nil
	return c, r
}

var routeguardTemplates = []string{"routeguard-comparison-error", "routeguard-route-degraded", "routeguard-routing-app-degraded", "routeguard-sync-failed", "routeguard-sync-succeeded"}

// TestEmailAndPlainMessage: for every service but Slack's bot, message is
// plain text (the headline without emoji, the app, project and revision,
// the event's text unescaped, the links); email gets its own subject.
func TestEmailAndPlainMessage(t *testing.T) {
	slack := newFakeSlack(t)
	a := newAPI(t, slack, apiOptions{argocdURL: argocdURL})
	email := &captured{}
	a.AddNotificationService("email", email)
	if err := a.Send(loadApp(t, "app-sync-failed.yaml"), []string{"routeguard-sync-failed"}, services.Destination{Service: "email", Recipient: "web-team@example.com"}); err != nil {
		t.Fatal(err)
	}
	n := email.take(t)
	if n.Email == nil || n.Email.Subject != "Sync failed: storefront-routing" || n.Email.Body != "" {
		t.Errorf("email = %+v, want subject %q and the message as its body", n.Email, "Sync failed: storefront-routing")
	}
	want := "Sync failed: storefront-routing (project web-team, revision 9e8d7c6)\n" +
		nasty + "\n• HTTPRoute web/" + nastyName + ": " + nasty + "\n" +
		"Application: " + appURL + "\n" +
		"Commit: https://github.com/acme/gitops/commit/" + failedRev
	if n.Message != want {
		t.Errorf("message =\n%q\nwant\n%q", n.Message, want)
	}
	// Every template on every fixture, also without argocdUrl: a subject, a
	// plain message without Slack's markup, never a missing value.
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, withURL := range []bool{true, false} {
		o := apiOptions{}
		if withURL {
			o.argocdURL = argocdURL
		}
		a := newAPI(t, slack, o)
		a.AddNotificationService("email", email)
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), "app-") {
				continue
			}
			for _, tmpl := range routeguardTemplates {
				if err := a.Send(loadApp(t, e.Name()), []string{tmpl}, services.Destination{Service: "email", Recipient: "x@example.com"}); err != nil {
					t.Fatalf("%s on %s: %v", tmpl, e.Name(), err)
				}
				n := email.take(t)
				for what, s := range map[string]string{"subject": n.Email.Subject, "message": n.Message} {
					if strings.Contains(s, "no value") || strings.Contains(s, "<nil>") || strings.HasPrefix(s, ":") || strings.Contains(s, "|") && strings.Contains(s, "<http") {
						t.Errorf("%s on %s: %s %q", tmpl, e.Name(), what, s)
					}
				}
				if withURL != strings.Contains(n.Message, "Application: "+argocdURL+"/applications/") {
					t.Errorf("%s on %s (argocdUrl %v): message %q", tmpl, e.Name(), withURL, n.Message)
				}
			}
		}
	}
}

// TestTeamsCard: every template sends a MessageCard through
// notifications-engine's Teams service (teams.template, posted as it is) to
// a loopback webhook: valid JSON, the title, colour, text, facts and buttons
// to the app and the commit.
func TestTeamsCard(t *testing.T) {
	slack := newFakeSlack(t)
	teams := newFakeTeams(t)
	a := newAPI(t, slack, apiOptions{argocdURL: argocdURL, extra: map[string]string{
		"service.teams": "recipientUrls:\n  web-team: " + teams.srv.URL + "/webhookb2/routeguard\n",
	}})
	if err := a.Send(loadApp(t, "app-sync-failed.yaml"), []string{"routeguard-sync-failed"}, services.Destination{Service: "teams", Recipient: "web-team"}); err != nil {
		t.Fatal(err)
	}
	card, raw := teams.take(t)
	if card["@type"] != "MessageCard" || card["themeColor"] != "E96D76" || card["title"] != "Sync failed: storefront-routing" {
		t.Errorf("card head: %v %v %v", card["@type"], card["themeColor"], card["title"])
	}
	text, _ := card["text"].(string)
	if strings.ContainsAny(text, "<>") || unescapeSlack(text) != strings.ReplaceAll(nasty+"\n• HTTPRoute web/"+nastyName+": "+nasty, "\n", "\n\n") {
		t.Errorf("card text %q", text)
	}
	facts := map[string]string{}
	for _, f := range card["sections"].([]any)[0].(map[string]any)["facts"].([]any) {
		f := f.(map[string]any)
		facts[f["name"].(string)] = f["value"].(string)
	}
	if facts["Revision"] != "9e8d7c6" || facts["Project"] != "web-team" || facts["Operation"] != "Failed" || facts["Repository"] != "git@github.com:acme/gitops.git" {
		t.Errorf("facts %v", facts)
	}
	var uris []string
	for _, pa := range card["potentialAction"].([]any) {
		uris = append(uris, pa.(map[string]any)["targets"].([]any)[0].(map[string]any)["uri"].(string))
	}
	if strings.Join(uris, " ") != appURL+" https://github.com/acme/gitops/commit/"+failedRev {
		t.Errorf("buttons %v", uris)
	}
	if strings.Contains(raw, "no value") {
		t.Errorf("card renders a missing value: %s", raw)
	}
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "app-") {
			continue
		}
		for _, tmpl := range routeguardTemplates {
			if err := a.Send(loadApp(t, e.Name()), []string{tmpl}, services.Destination{Service: "teams", Recipient: "web-team"}); err != nil {
				t.Fatalf("%s on %s: %v", tmpl, e.Name(), err)
			}
			card, raw := teams.take(t)
			title, _ := card["title"].(string)
			if card["@type"] != "MessageCard" || strings.Contains(raw, "no value") || title == "" || strings.HasPrefix(title, ":") {
				t.Errorf("%s on %s: %s", tmpl, e.Name(), raw)
			}
		}
	}
}
