package notifications

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	argoctrl "github.com/argoproj/argo-cd/v3/notification_controller/controller"
	enginectrl "github.com/argoproj/notifications-engine/pkg/controller"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes/fake"
)

var appsGVR = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}

// A test-only trigger that fires once per value of an annotation: after each
// change of the Application the test bumps it and waits for the controller
// to record it, so it knows the controller has processed that version
// (no sleeping for a fixed time, no timing).
const tickTrigger = `- when: "true"
  oncePer: app.metadata.annotations['routeguard.test/tick']
  send: [routeguard-test-tick]
`

// runningController is Argo CD's notifications controller
// (notification_controller/controller) on a fake cluster holding the bundle
// and one Application subscribed to trigger on the Slack channel "e2e".
type runningController struct {
	t     *testing.T
	ctx   context.Context
	slack *fakeSlack
	apps  dynamic.ResourceInterface
	name  string
	tick  int
}

func startController(t *testing.T, fixture, trigger string) *runningController {
	t.Helper()
	slack := newFakeSlack(t)
	data := bundleData(t)
	data["service.slack"] = "token: $slack-token\napiURL: " + slack.apiURL() + "\n"
	data["context"] = "argocdUrl: " + argocdURL + "\n"
	data["trigger.on-test-tick"] = tickTrigger
	data["template.routeguard-test-tick"] = "message: tick\n"
	k8s := fake.NewSimpleClientset(
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: cmName, Namespace: namespace}, Data: data},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: secretName, Namespace: namespace}, Data: map[string][]byte{"slack-token": []byte(slackToken)}},
	)
	app := &unstructured.Unstructured{Object: loadApp(t, fixture)}
	app.SetAnnotations(map[string]string{
		"notifications.argoproj.io/subscribe." + trigger + ".slack": "e2e",
		"notifications.argoproj.io/subscribe.on-test-tick.slack":    "e2e-ticks",
		"routeguard.test/tick": "1",
	})
	dyn := newDynamicClient(t, app)
	ctrl := argoctrl.NewController(k8s, dyn, newArgoCDService(t, k8s, dyn), namespace, nil, "", enginectrl.NewMetricsRegistry("argocd"), secretName, cmName, false)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := ctrl.Init(ctx); err != nil {
		t.Fatal(err)
	}
	go ctrl.Run(ctx, 1)
	rc := &runningController{t: t, ctx: ctx, slack: slack, apps: dyn.Resource(appsGVR).Namespace(namespace), name: app.GetName(), tick: 1}
	rc.processed()
	return rc
}

// processed waits until the controller has recorded the current tick in the
// Application's notification state, i.e. it evaluated that version.
func (rc *runningController) processed() {
	rc.t.Helper()
	want := strconv.Itoa(rc.tick) + ":on-test-tick:"
	deadline := time.Now().Add(60 * time.Second) // a hang guard, not a timing assertion
	for time.Now().Before(deadline) {
		cur, err := rc.apps.Get(rc.ctx, rc.name, metav1.GetOptions{})
		if err != nil {
			rc.t.Fatal(err)
		}
		state := map[string]int64{}
		_ = json.Unmarshal([]byte(cur.GetAnnotations()["notified.notifications.argoproj.io"]), &state)
		for k := range state {
			if strings.HasPrefix(k, want) {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	rc.t.Fatalf("the controller never processed tick %d", rc.tick)
}

// update edits the Application, bumps the tick and waits for the controller.
func (rc *runningController) update(edit func(map[string]any)) {
	rc.t.Helper()
	cur, err := rc.apps.Get(rc.ctx, rc.name, metav1.GetOptions{})
	if err != nil {
		rc.t.Fatal(err)
	}
	rc.tick++
	ann := cur.GetAnnotations()
	ann["routeguard.test/tick"] = strconv.Itoa(rc.tick)
	cur.SetAnnotations(ann)
	edit(cur.Object)
	if _, err := rc.apps.Update(rc.ctx, cur, metav1.UpdateOptions{}); err != nil {
		rc.t.Fatal(err)
	}
	rc.processed()
}

// sent returns the messages posted to the subscribed channel since the last call.
func (rc *runningController) sent() []slackPost {
	var out []slackPost
	for _, p := range rc.slack.takePosts() {
		if p.Channel == "e2e" {
			out = append(out, p)
		}
	}
	return out
}

// on-routeguard-sync-failed: one message per failed revision, none for a retry of the
// same revision, and one for a new revision even while the condition stays
// true. Argo CD's controller keeps the state in the
// notified.notifications.argoproj.io annotation and skips apps whose sync
// status was not refreshed after the operation.
func TestControllerSendsSyncFailedOncePerRevision(t *testing.T) {
	rc := startController(t, "app-sync-failed.yaml", "on-routeguard-sync-failed")
	if got := rc.sent(); len(got) != 1 || !strings.Contains(got[0].Text, "revision "+failedLink) {
		t.Fatalf("first failure: %d messages %v, want one naming %s", len(got), got, failedLink)
	}

	// Auto-sync retries the same revision and fails again: no second message.
	rc.update(func(o map[string]any) {
		set(o, "2026-11-30T03:20:00Z", "status", "operationState", "startedAt")
		set(o, "2026-11-30T03:21:00Z", "status", "operationState", "finishedAt")
		set(o, "2026-11-30T03:30:00Z", "status", "reconciledAt")
	})
	if got := rc.sent(); len(got) != 0 {
		t.Fatalf("retry of the same revision sent %d messages", len(got))
	}

	// A new revision fails while the condition stays true: one message, about
	// that revision (without oncePer the controller would stay silent here,
	// as Argo CD v2.14's catalog on-sync-failed did; 3.x's has the same oncePer).
	const rev2 = "1111111111222222222233333333334444444444"
	rc.update(func(o map[string]any) {
		set(o, rev2, "status", "operationState", "syncResult", "revision")
		set(o, "2026-11-30T03:40:00Z", "status", "operationState", "startedAt")
		set(o, "2026-11-30T03:41:00Z", "status", "operationState", "finishedAt")
		set(o, "2026-11-30T03:50:00Z", "status", "reconciledAt")
	})
	got := rc.sent()
	if len(got) != 1 || !strings.Contains(got[0].Text, "commit/"+rev2+"|1111111>") {
		t.Fatalf("new revision: %d messages %v, want one naming %s", len(got), got, rev2)
	}
}

// newRevision moves the app to another synced revision.
func newRevision(rev string) func(map[string]any) {
	return func(o map[string]any) {
		set(o, rev, "status", "operationState", "syncResult", "revision")
		set(o, rev, "status", "sync", "revision")
	}
}

// on-routeguard-route-degraded fires once per revision (oncePer, as the
// catalog's on-health-degraded): one message when a route becomes degraded,
// none while it stays degraded, none after it recovered and degraded again
// in the same revision, and one when a new revision degrades.
func TestControllerSendsRouteDegradedOncePerRevision(t *testing.T) {
	rc := startController(t, "app-routes-degraded.yaml", "on-routeguard-route-degraded")
	if got := rc.sent(); len(got) != 1 || !strings.HasPrefix(got[0].Text, ":warning: Route degraded:") {
		t.Fatalf("degraded: %d messages %v, want one", len(got), got)
	}
	healthy := func(o map[string]any) {
		set(o, "Healthy", "status", "health", "status")
		for _, r := range o["status"].(map[string]any)["resources"].([]any) {
			set(r.(map[string]any), "Healthy", "health", "status")
		}
	}
	rc.update(func(o map[string]any) { set(o, "2026-11-30T03:20:00Z", "status", "reconciledAt") })
	if got := rc.sent(); len(got) != 0 {
		t.Fatalf("still degraded: %d more messages", len(got))
	}
	rc.update(healthy)
	if got := rc.sent(); len(got) != 0 {
		t.Fatalf("recovered: %d messages", len(got))
	}
	degradeVS := func(o map[string]any) {
		set(o, "Degraded", "status", "health", "status")
		r := o["status"].(map[string]any)["resources"].([]any)[1].(map[string]any) // the VirtualService
		set(r, "Degraded", "health", "status")
		set(r, "subset v3 not found", "health", "message")
	}
	rc.update(degradeVS)
	if got := rc.sent(); len(got) != 0 {
		t.Fatalf("degraded again in the same revision: %d messages, want none", len(got))
	}
	rc.update(healthy)
	rc.update(func(o map[string]any) { newRevision("2222222222222222222222222222222222222222")(o); degradeVS(o) })
	got := rc.sent()
	if len(got) != 1 {
		t.Fatalf("a new revision degraded: %d messages, want 1", len(got))
	}
	if text := str(t, got[0].Attachments[0], "text"); text != "• VirtualService web/storefront: subset v3 not found" {
		t.Errorf("degraded again: text = %q", text)
	}
}

// routingAppDegradedText is the attachment text of routeguard-routing-app-degraded
// for app-v3-routes-degraded.yaml, unescaped.
const routingAppDegradedText = "Argo CD did not record which resource is degraded (per-resource health is kept in the resource tree since Argo CD 3.0). Routing resources of this application:\n" +
	"• HTTPRoute web/" + nastyName + "\n" +
	"• VirtualService web/storefront\n" +
	"To name the degraded resources here, set controller.resource.health.persist: \"true\" in argocd-cmd-params-cm."

// on-routeguard-route-degraded on Argo CD 3.x as installed by default, where the
// Application carries no per-resource health (resourceHealthSource:
// appTree): one message when the app turns Degraded, naming its routing
// resources; none while it stays Degraded or after it recovered, nor when it
// degrades again in the same revision; one when a new revision degrades;
// none when it degrades after its routing resources are gone.
func TestControllerSendsRoutingAppDegradedOnV3(t *testing.T) {
	rc := startController(t, "app-v3-routes-degraded.yaml", "on-routeguard-route-degraded")
	got := rc.sent()
	if len(got) != 1 || !strings.HasPrefix(got[0].Text, ":warning: Degraded, with routing resources: ") {
		t.Fatalf("degraded: %d messages %v, want one", len(got), got)
	}
	checkEscaped(t, "attachment text", str(t, got[0].Attachments[0], "text"), routingAppDegradedText)

	rc.update(func(o map[string]any) { set(o, "2026-11-30T03:20:00Z", "status", "reconciledAt") })
	if got := rc.sent(); len(got) != 0 {
		t.Fatalf("still degraded: %d more messages", len(got))
	}
	rc.update(func(o map[string]any) { set(o, "Healthy", "status", "health", "status") })
	if got := rc.sent(); len(got) != 0 {
		t.Fatalf("recovered: %d messages", len(got))
	}
	rc.update(func(o map[string]any) { set(o, "Degraded", "status", "health", "status") })
	if got := rc.sent(); len(got) != 0 {
		t.Fatalf("degraded again in the same revision: %d messages, want none", len(got))
	}
	rc.update(func(o map[string]any) { set(o, "Healthy", "status", "health", "status") })
	rc.update(func(o map[string]any) {
		newRevision("3333333333333333333333333333333333333333")(o)
		set(o, "Degraded", "status", "health", "status")
	})
	if got := rc.sent(); len(got) != 1 {
		t.Fatalf("a new revision degraded: %d messages, want 1", len(got))
	}
	rc.update(func(o map[string]any) { set(o, "Healthy", "status", "health", "status") })
	rc.update(func(o map[string]any) {
		newRevision("4444444444444444444444444444444444444444")(o)
		set(o, "Degraded", "status", "health", "status")
		set(o, []any{map[string]any{"group": "apps", "version": "v1", "kind": "Deployment", "namespace": "web", "name": "storefront", "status": "Synced"}}, "status", "resources")
	})
	if got := rc.sent(); len(got) != 0 {
		t.Fatalf("degraded without routing resources: %d messages, want none", len(got))
	}
}
