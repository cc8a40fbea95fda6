package notifications

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	argoctrl "github.com/argoproj/argo-cd/v2/notification_controller/controller"
	"github.com/argoproj/argo-cd/v2/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v2/util/notification/argocd/mocks"
	enginectrl "github.com/argoproj/notifications-engine/pkg/controller"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
)

var appsGVR = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}

// A test-only trigger that fires once per value of an annotation: after each
// change of the Application the test bumps it and waits for the controller
// to record it, so it knows the controller has processed that version
// (no sleeping, no timing).
const tickTrigger = `- when: "true"
  oncePer: app.metadata.annotations['routeguard.test/tick']
  send: [routeguard-test-tick]
`

// TestControllerSendsSyncFailedOncePerRevision runs Argo CD's notifications
// controller (informers, subscriptions from annotations, the "sync status
// refreshed" check, notification state in the notified.notifications.argoproj.io
// annotation) on a fake cluster with the bundle, and checks oncePer: one
// message per failed revision, none for a retry of the same revision.
func TestControllerSendsSyncFailedOncePerRevision(t *testing.T) {
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
	scheme := runtime.NewScheme()
	if err := v1alpha1.SchemeBuilder.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	app := &unstructured.Unstructured{Object: loadApp(t, "app-sync-failed.yaml")}
	app.SetAnnotations(map[string]string{
		"notifications.argoproj.io/subscribe.on-sync-failed.slack": "e2e-failed",
		"notifications.argoproj.io/subscribe.on-test-tick.slack":   "e2e-ticks",
		"routeguard.test/tick": "1",
	})
	dyn := dynamicfake.NewSimpleDynamicClient(scheme, app)
	ctrl := argoctrl.NewController(k8s, dyn, &mocks.Service{}, namespace, nil, "", enginectrl.NewMetricsRegistry("argocd"), secretName, cmName, false)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := ctrl.Init(ctx); err != nil {
		t.Fatal(err)
	}
	go ctrl.Run(ctx, 1)

	apps := dyn.Resource(appsGVR).Namespace(namespace)
	// processed waits until the controller has recorded the tick in the
	// Application's notification state, i.e. it evaluated that version.
	processed := func(tick string) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second) // a hang guard, not a timing assertion
		for time.Now().Before(deadline) {
			cur, err := apps.Get(ctx, app.GetName(), metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			state := map[string]int64{}
			_ = json.Unmarshal([]byte(cur.GetAnnotations()["notified.notifications.argoproj.io"]), &state)
			for k := range state {
				if strings.HasPrefix(k, tick+":on-test-tick:") {
					return
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("the controller never processed tick %s", tick)
	}
	update := func(tick string, edit func(map[string]any)) {
		t.Helper()
		cur, err := apps.Get(ctx, app.GetName(), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ann := cur.GetAnnotations()
		ann["routeguard.test/tick"] = tick
		cur.SetAnnotations(ann)
		edit(cur.Object)
		if _, err := apps.Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		processed(tick)
	}
	failedPosts := func() []slackPost {
		var out []slackPost
		for _, p := range slack.takePosts() {
			if p.Channel == "e2e-failed" {
				out = append(out, p)
			}
		}
		return out
	}

	processed("1")
	if got := failedPosts(); len(got) != 1 || !strings.Contains(got[0].Text, "revision "+failedLink) {
		t.Fatalf("first failure: %d messages %v, want one naming %s", len(got), got, failedLink)
	}

	// Auto-sync retries the same revision and fails again: no second message.
	update("2", func(o map[string]any) {
		set(o, "2026-11-30T03:20:00Z", "status", "operationState", "startedAt")
		set(o, "2026-11-30T03:21:00Z", "status", "operationState", "finishedAt")
		set(o, "2026-11-30T03:30:00Z", "status", "reconciledAt")
	})
	if got := failedPosts(); len(got) != 0 {
		t.Fatalf("retry of the same revision sent %d messages", len(got))
	}

	// A new revision fails while the condition stays true: one message, about
	// that revision (without oncePer the controller would stay silent here,
	// as Argo CD v2.14's catalog on-sync-failed does).
	const rev2 = "1111111111222222222233333333334444444444"
	update("3", func(o map[string]any) {
		set(o, rev2, "status", "operationState", "syncResult", "revision")
		set(o, "2026-11-30T03:40:00Z", "status", "operationState", "startedAt")
		set(o, "2026-11-30T03:41:00Z", "status", "operationState", "finishedAt")
		set(o, "2026-11-30T03:50:00Z", "status", "reconciledAt")
	})
	got := failedPosts()
	if len(got) != 1 || !strings.Contains(got[0].Text, "commit/"+rev2+"|1111111>") {
		t.Fatalf("new revision: %d messages %v, want one naming %s", len(got), got, rev2)
	}

}
