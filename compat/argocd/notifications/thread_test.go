package notifications

import (
	"fmt"
	"testing"

	"github.com/argoproj/notifications-engine/pkg/services"
)

var threadRuns int

// Messages about one app and one revision thread under the first; another
// revision starts a new thread. Slack's threaded client keeps thread
// timestamps per recipient and groupingKey (templates set
// routeguard/<namespace>/<app>/<revision>).
func TestSlackThreadsOneAppAndRevision(t *testing.T) {
	slack := newFakeSlack(t)
	a := newAPI(t, slack, apiOptions{argocdURL: argocdURL})
	// The threaded client's state lives as long as the process: a fresh
	// channel per run keeps -count=N runs apart.
	threadRuns++
	channel := fmt.Sprintf("threads-%d", threadRuns)
	send := func(app map[string]any, template string) slackPost {
		t.Helper()
		if err := a.Send(app, []string{template}, services.Destination{Service: "slack", Recipient: channel}); err != nil {
			t.Fatal(err)
		}
		posts := slack.takePosts()
		if len(posts) != 1 {
			t.Fatalf("%d posts", len(posts))
		}
		return posts[0]
	}
	failed := loadApp(t, "app-sync-failed.yaml") // revision 9e8d7c6…
	degraded := loadApp(t, "app-routes-degraded.yaml")
	otherRev := loadApp(t, "app-synced-healthy.yaml") // revision 4f2c1d9…
	otherApp := loadApp(t, "app-routes-degraded.yaml")
	set(otherApp, "checkout-routing", "metadata", "name")

	first := send(failed, "routeguard-sync-failed")
	if first.ThreadTS != "" {
		t.Fatalf("first message is a reply (thread_ts %q)", first.ThreadTS)
	}
	if p := send(degraded, "routeguard-route-degraded"); p.ThreadTS != first.TS {
		t.Errorf("same app and revision: thread_ts = %q, want %q", p.ThreadTS, first.TS)
	}
	if p := send(degraded, "routeguard-sync-succeeded"); p.ThreadTS != first.TS {
		t.Errorf("same app and revision, third message: thread_ts = %q, want %q", p.ThreadTS, first.TS)
	}
	if p := send(otherRev, "routeguard-sync-succeeded"); p.ThreadTS != "" {
		t.Errorf("other revision joined a thread: %q", p.ThreadTS)
	}
	if p := send(otherApp, "routeguard-route-degraded"); p.ThreadTS != "" {
		t.Errorf("other app joined a thread: %q", p.ThreadTS)
	}
}

// The slack-webhook service posts one JSON body with the same text, blocks
// and attachments as the bot-token message.
func TestSlackIncomingWebhookCarriesTheSameMessage(t *testing.T) {
	slack := newFakeSlack(t)
	a := newAPI(t, slack, apiOptions{argocdURL: argocdURL})
	for _, c := range []struct{ fixture, template string }{
		{"app-sync-failed.yaml", "routeguard-sync-failed"},
		{"app-comparison-error.yaml", "routeguard-comparison-error"},
		{"app-routes-degraded.yaml", "routeguard-route-degraded"},
		{"app-synced-healthy.yaml", "routeguard-sync-succeeded"},
	} {
		app := loadApp(t, c.fixture)
		bot := sendOne(t, a, slack, app, c.template, "webhook-compare")
		if err := a.Send(app, []string{c.template}, services.Destination{Service: "slack-webhook"}); err != nil {
			t.Fatalf("%s via webhook: %v", c.template, err)
		}
		hooks := slack.takeHooks()
		if len(hooks) != 1 {
			t.Fatalf("%s: %d webhook calls, want 1", c.template, len(hooks))
		}
		h := hooks[0]
		if h.Path != "/hooks/T0000/B0000/routeguard" || h.ContentType != "application/json" {
			t.Errorf("%s: webhook call to %s with %q", c.template, h.Path, h.ContentType)
		}
		if got := str(t, h.Body, "text"); got != bot.Text {
			t.Errorf("%s: webhook text = %q, bot text %q", c.template, got, bot.Text)
		}
		for _, path := range [][]any{{"blocks", 0, "text", "text"}, {"blocks", 1, "elements", 0, "text"}} {
			botBlocks := map[string]any{"blocks": toAny(bot.Blocks)}
			if got, want := str(t, h.Body, path...), str(t, botBlocks, path...); got != want {
				t.Errorf("%s: webhook %v = %q, bot %q", c.template, path, got, want)
			}
		}
		botAtt := map[string]any{"attachments": toAny(bot.Attachments)}
		for _, key := range []string{"color", "title", "title_link", "text", "fallback"} {
			if got, want := str(t, h.Body, "attachments", 0, key), str(t, botAtt, "attachments", 0, key); got != want {
				t.Errorf("%s: webhook attachment %s = %q, bot %q", c.template, key, got, want)
			}
		}
		whFields := fields(t, h.Body["attachments"].([]any)[0].(map[string]any))
		if botFields := fields(t, bot.Attachments[0]); len(whFields) != 6 || fmtMap(whFields) != fmtMap(botFields) {
			t.Errorf("%s: webhook fields %v, bot fields %v", c.template, whFields, botFields)
		}
	}
}

func toAny(list []map[string]any) []any {
	out := make([]any, len(list))
	for i, m := range list {
		out[i] = m
	}
	return out
}

func fmtMap(m map[string]string) string {
	s := ""
	for _, k := range sortedNames(m) {
		s += k + "=" + m[k] + "\n"
	}
	return s
}
