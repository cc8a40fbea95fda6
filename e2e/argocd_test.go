package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/routeguard/routeguard/e2e/testbed"
)

// Scenarios 1-3: the example repository synced by Argo CD v3.5 (its own
// application-controller, repo-server, argocd-cmp-server running
// routeguard's cmp/plugin.yaml, notifications controller) from the loopback
// Git server, through the app of apps examples/argocd/root-app.yaml.
//
// The app under test is routing-gateways (examples/apps/routing/gateways:
// the shared Gateway and the shop's routes, rendered by the plugin). Its
// routes' health comes from routeguard's Lua checks (bundled with
// --override-builtin, so they replace Argo CD's built-in HTTPRoute, GRPCRoute
// and Gateway checks); the stand-in gateway controller writes their status.

const (
	gatewaysApp  = "routing-gateways"
	gatewaysPath = "examples/apps/routing/gateways"
	shopNS       = "shop-prod"
)

var rootOnce sync.Once

// argoWithExamples starts Argo CD and applies the root Application once; it
// returns when routing-gateways exists.
func argoWithExamples(t *testing.T) (*testbed.Bed, *testbed.Kube) {
	t.Helper()
	b := testbed.Get(t)
	b.Argo(t)
	kube := b.Kube(t)
	b.Gateways(t)
	var err error
	rootOnce.Do(func() { err = b.ApplyFile(context.Background(), "examples/argocd/root-app.yaml") })
	if err != nil {
		t.Fatalf("apply root-app.yaml: %v", err)
	}
	eventually(t, "the root app creates "+gatewaysApp, func() (bool, string) {
		a := app(t, kube, gatewaysApp)
		return a != nil, appSummary(app(t, kube, "root"))
	})
	return b, kube
}

// waitSynced waits until the app is Synced to rev. (Argo CD runs no sync
// operation for a revision whose objects equal the live ones: the last
// operation may be older.)
func waitSynced(t *testing.T, kube *testbed.Kube, name, rev string) {
	t.Helper()
	eventually(t, name+" Synced at "+short(rev), func() (bool, string) {
		a := app(t, kube, name)
		ok := str(a, "status", "sync", "status") == "Synced" && str(a, "status", "sync", "revision") == rev &&
			str(a, "status", "operationState", "phase") != "Running"
		return ok, appSummary(a)
	})
}

// waitSyncOperation waits until the app's last sync operation, at rev, has
// phase.
func waitSyncOperation(t *testing.T, kube *testbed.Kube, name, rev, phase string) {
	t.Helper()
	eventually(t, name+" sync operation "+phase+" at "+short(rev), func() (bool, string) {
		a := app(t, kube, name)
		return str(a, "status", "operationState", "phase") == phase &&
			str(a, "status", "operationState", "syncResult", "revision") == rev, appSummary(a)
	})
}

// TestArgoGoodRevision (scenario 1): a good revision syncs; the objects are in
// the API server; routeguard's Lua health says Progressing while no
// controller has written status, Healthy once the stand-in has, Degraded
// when a route is not accepted. The degraded notification reaches the sink
// once per synced revision (routeguard's on-routeguard-route-degraded has
// oncePer on the revision:
// notifications/argocd/triggers/on-routeguard-route-degraded.yaml): not
// again while the route stays degraded, nor when it recovers and degrades
// again at the same revision; once more when a new revision is synced while
// it is degraded.
func TestArgoGoodRevision(t *testing.T) {
	b, kube := argoWithExamples(t)
	ctx := context.Background()
	gw := b.Gateways(t)
	sink := b.Sink(t)
	rev, err := b.Repo(t).Head()
	if err != nil {
		t.Fatal(err)
	}
	waitSynced(t, kube, gatewaysApp, rev)
	waitSyncOperation(t, kube, gatewaysApp, rev, "Succeeded")
	// The Services the routes point at come from two other apps; a real
	// controller reports ResolvedRefs=False until they exist, so the
	// stand-in starts once they are synced.
	waitSynced(t, kube, "frontend-prod", rev)
	waitSynced(t, kube, "backend-prod", rev)

	routes := []struct {
		gvk             schema.GroupVersionKind
		namespace, name string
	}{
		{gvkGateway, "gateway-infra", "shop"},
		{gvkHTTPRoute, shopNS, "frontend"},
		{gvkHTTPRoute, shopNS, "backend-api"},
		{gvkHTTPRoute, shopNS, "https-redirect"},
		{gvkGRPCRoute, shopNS, "backend-grpc"},
	}
	for _, r := range routes {
		live, err := kube.Get(ctx, r.gvk, r.namespace, r.name)
		if err != nil || live == nil {
			t.Fatalf("%s %s/%s not in the API server after the sync (err %v)", r.gvk.Kind, r.namespace, r.name, err)
		}
		if got := live.GetAnnotations()["argocd.argoproj.io/tracking-id"]; !strings.HasPrefix(got, gatewaysApp+":") {
			t.Errorf("%s %s/%s tracking-id %q: not applied by %s", r.gvk.Kind, r.namespace, r.name, got, gatewaysApp)
		}
	}

	// No controller has written status yet: routeguard's check waits.
	a := app(t, kube, gatewaysApp)
	for _, r := range routes {
		status, msg := resourceHealth(a, r.gvk.Kind, r.namespace, r.name)
		if status != "Progressing" || !(strings.Contains(msg, "waiting for") && strings.Contains(msg, "controller")) {
			t.Errorf("before any status, %s %s/%s health = %s %q, want Progressing from routeguard's check", r.gvk.Kind, r.namespace, r.name, status, msg)
		}
	}
	if h := str(a, "status", "health", "status"); h != "Progressing" {
		t.Errorf("application health before any status = %s, want Progressing", h)
	}

	gw.Enable()
	eventually(t, "every route Healthy once the stand-in wrote status", func() (bool, string) {
		a := app(t, kube, gatewaysApp)
		var states []string
		ok := true
		for _, r := range routes {
			status, msg := resourceHealth(a, r.gvk.Kind, r.namespace, r.name)
			states = append(states, r.name+"="+status+" ("+msg+")")
			ok = ok && status == "Healthy"
		}
		return ok && str(a, "status", "health", "status") == "Healthy", strings.Join(states, "; ") + "; " + appSummary(a)
	})
	_, msg := resourceHealth(app(t, kube, gatewaysApp), "HTTPRoute", shopNS, "frontend")
	if !strings.Contains(msg, "accepted") || !strings.Contains(msg, "Gateway gateway-infra/shop") {
		t.Errorf("Healthy message of HTTPRoute frontend = %q, want routeguard's (accepted ... by Gateway gateway-infra/shop ...)", msg)
	}
	if n := len(sink.Matching("Route degraded", gatewaysApp)); n != 0 {
		t.Errorf("%d degraded notifications before anything was degraded", n)
	}

	// The controller refuses one route: Degraded, and one notification.
	gw.Reject(shopNS, "frontend", "listener https does not allow this route (stand-in)")
	defer gw.Accept(shopNS, "frontend")
	eventually(t, "HTTPRoute frontend Degraded", func() (bool, string) {
		a := app(t, kube, gatewaysApp)
		status, msg := resourceHealth(a, "HTTPRoute", shopNS, "frontend")
		return status == "Degraded" && strings.Contains(msg, "listener https does not allow this route") &&
			str(a, "status", "health", "status") == "Degraded", status + " " + msg + "; " + appSummary(a)
	})
	eventually(t, "the degraded notification reaches the sink", func() (bool, string) {
		n := len(sink.Matching("Route degraded", gatewaysApp))
		return n > 0, describeSink(sink)
	})
	// It stays Degraded for several more reconciliations of the app and of
	// the notifications controller: still one message.
	waitReconciled(t, kube, 3)
	if got := sink.Matching("Route degraded", gatewaysApp); len(got) != 1 {
		t.Errorf("%d degraded notifications for one degradation, want 1:\n%s", len(got), describeSink(sink))
	} else {
		if !strings.Contains(got[0].Attachments+got[0].Text, "HTTPRoute "+shopNS+"/frontend") {
			t.Errorf("degraded notification does not name HTTPRoute %s/frontend:\n%s", shopNS, got[0].Text+got[0].Attachments)
		}
		if got[0].Channel != "shop-deploys" {
			t.Errorf("degraded notification went to %q, want the subscribed channel shop-deploys", got[0].Channel)
		}
	}

	// It recovers and degrades again at the same revision: oncePer keeps
	// it at one message (a trigger without oncePer sends on each
	// transition into Degraded).
	gw.Accept(shopNS, "frontend")
	waitAppHealth(t, kube, "Healthy")
	gw.Reject(shopNS, "frontend", "listener https does not allow this route (stand-in, again)")
	waitAppHealth(t, kube, "Degraded")
	waitReconciled(t, kube, 3)
	if got := sink.Matching("Route degraded", gatewaysApp); len(got) != 1 {
		t.Errorf("%d degraded notifications after a second degradation at revision %s, want 1 (oncePer on the revision):\n%s", len(got), short(rev), describeSink(sink))
	}

	// A new revision synced while the route is still degraded: one more.
	repo := b.Repo(t)
	redirect, err := repo.ReadFile(gatewaysPath + "/httproute-redirect.yaml")
	if err != nil {
		t.Fatal(err)
	}
	labelled := strings.Replace(redirect, "  namespace: shop-prod\n", "  namespace: shop-prod\n  labels: {release: next}\n", 1)
	if labelled == redirect {
		t.Fatalf("%s/httproute-redirect.yaml has no 'namespace: shop-prod' line to label after", gatewaysPath)
	}
	if err := repo.WriteFile(gatewaysPath+"/httproute-redirect.yaml", labelled); err != nil {
		t.Fatal(err)
	}
	next, err := repo.Commit("routing: label the redirect route")
	if err != nil {
		t.Fatal(err)
	}
	waitSyncOperation(t, kube, gatewaysApp, next, "Succeeded")
	eventually(t, "a second degraded notification, for revision "+short(next), func() (bool, string) {
		return len(sink.Matching("Route degraded", gatewaysApp)) == 2, describeSink(sink)
	})
	waitReconciled(t, kube, 3)
	if got := sink.Matching("Route degraded", gatewaysApp); len(got) != 2 {
		t.Errorf("%d degraded notifications after a new revision synced while degraded, want 2:\n%s", len(got), describeSink(sink))
	}

	gw.Accept(shopNS, "frontend")
	waitAppHealth(t, kube, "Healthy")
	restore(t, b, kube, gatewaysPath+"/httproute-redirect.yaml")
	waitAppHealth(t, kube, "Healthy")
	if got := sink.Matching("Route degraded", gatewaysApp); len(got) != 2 {
		t.Errorf("%d degraded notifications after the route recovered and the revert synced, want still 2:\n%s", len(got), describeSink(sink))
	}
}

// waitAppHealth waits until routing-gateways' health is status.
func waitAppHealth(t *testing.T, kube *testbed.Kube, status string) {
	t.Helper()
	eventually(t, gatewaysApp+" "+status, func() (bool, string) {
		a := app(t, kube, gatewaysApp)
		return str(a, "status", "health", "status") == status, appSummary(a)
	})
}

// waitReconciled waits until the application controller has reconciled
// routing-gateways n more times (status.reconciledAt changed n times), so
// that the notifications controller has seen its state more than once.
func waitReconciled(t *testing.T, kube *testbed.Kube, n int) {
	t.Helper()
	reconciledAt := str(app(t, kube, gatewaysApp), "status", "reconciledAt")
	seen := 0
	eventually(t, fmt.Sprintf("%d more reconciliations of %s", n, gatewaysApp), func() (bool, string) {
		now := str(app(t, kube, gatewaysApp), "status", "reconciledAt")
		if now != reconciledAt {
			seen++
			reconciledAt = now
		}
		return seen >= n, "reconciledAt " + now
	})
}

func describeSink(s *testbed.SlackSink) string {
	var b strings.Builder
	for _, m := range s.Messages() {
		text := m.Text
		if len(text) > 160 {
			text = text[:160] + "..."
		}
		b.WriteString(m.Method + " #" + m.Channel + ": " + text + "\n")
	}
	if b.Len() == 0 {
		return "(the sink received nothing)"
	}
	return b.String()
}

// checkoutRoute is a route of a broken revision: its backendRef names a
// Service no app renders.
const checkoutRoute = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: checkout
  namespace: shop-prod
spec:
  parentRefs:
    - name: shop
      namespace: gateway-infra
      sectionName: https
  hostnames:
    - checkout.shop.example.com
  rules:
    - backendRefs:
        - name: checkout-typo
          port: 8080
`

// TestArgoBrokenRevision (scenario 2): a revision whose new route has a
// dangling backendRef: the Application shows a ComparisonError holding
// routeguard's report, nothing of the revision is applied, and the
// comparison-error notification reaches the sink.
func TestArgoBrokenRevision(t *testing.T) {
	b, kube := argoWithExamples(t)
	ctx := context.Background()
	sink := b.Sink(t)
	repo := b.Repo(t)
	good, err := repo.Head()
	if err != nil {
		t.Fatal(err)
	}
	waitSynced(t, kube, gatewaysApp, good)

	// What routeguard says about the revision, run as a user runs it.
	if err := repo.WriteFile(gatewaysPath+"/httproute-checkout.yaml", checkoutRoute); err != nil {
		t.Fatal(err)
	}
	defer restore(t, b, kube, gatewaysPath+"/httproute-checkout.yaml")
	report, _, code := routeguardRun(t, b, repo.Work, "analyze", gatewaysPath)
	if code != 1 || !strings.Contains(report, "checkout-typo") {
		t.Fatalf("routeguard analyze of the broken revision: exit %d, want 1 with a finding on checkout-typo:\n%s", code, report)
	}
	broken, err := repo.Commit("routing: checkout route (its Service is misspelt)")
	if err != nil {
		t.Fatal(err)
	}

	eventually(t, gatewaysApp+" ComparisonError with routeguard's report for "+short(broken), func() (bool, string) {
		a := app(t, kube, gatewaysApp)
		for _, msg := range appConditions(a, "ComparisonError") {
			if strings.Contains(msg, "checkout-typo") && strings.Contains(msg, "routeguard") {
				return true, ""
			}
		}
		return false, appSummary(a)
	})
	a := app(t, kube, gatewaysApp)
	if s := str(a, "status", "sync", "status"); s == "Synced" && str(a, "status", "sync", "revision") == broken {
		t.Errorf("sync status Synced at the broken revision: %s", appSummary(a))
	}
	if live, err := kube.Get(ctx, gvkHTTPRoute, shopNS, "checkout"); err != nil || live != nil {
		t.Errorf("HTTPRoute checkout of the broken revision is in the API server (err %v)", err)
	}
	if got := str(a, "status", "operationState", "syncResult", "revision"); got == broken {
		t.Errorf("a sync operation ran at the broken revision %s: %s", short(broken), appSummary(a))
	}
	eventually(t, "the comparison-error notification reaches the sink", func() (bool, string) {
		for _, m := range sink.Matching("Routing change refused", gatewaysApp) {
			if strings.Contains(m.Text+m.Attachments, "checkout-typo") {
				return m.Channel == "shop-deploys", "channel " + m.Channel
			}
		}
		return false, describeSink(sink)
	})
}

// restore removes the files a scenario added (or restores them from the
// checkout), commits, and waits until the app is synced at the new revision.
func restore(t *testing.T, b *testbed.Bed, kube *testbed.Kube, paths ...string) {
	t.Helper()
	repo := b.Repo(t)
	for _, p := range paths {
		if err := repo.Restore(b.RepoRoot, p); err != nil {
			t.Fatal(err)
		}
	}
	rev, err := repo.Commit("revert: back to the example repository")
	if err != nil {
		t.Fatal(err)
	}
	waitSynced(t, kube, gatewaysApp, rev)
}

// promoRoute is a route the API server refuses: its CRD's schema allows
// lower-case hostnames only.
const promoRoute = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: promo
  namespace: shop-prod
spec:
  parentRefs:
    - name: shop
      namespace: gateway-infra
      sectionName: https
  hostnames:
    - Promo.shop.example.com
  rules:
    - backendRefs:
        - name: frontend
          port: 80
`

// TestArgoRejectedRevision (scenario 3): a revision the API server rejects,
// synced with routeguard in warn-only mode (FAIL_ON=never in the
// Application's plugin env, as a team adopting routeguard runs it): what
// routeguard's validation said (RG5001 at spec.hostnames[0]) against what
// the sync got from the API server; the sync-failed notification reaches the
// sink.
func TestArgoRejectedRevision(t *testing.T) {
	b, kube := argoWithExamples(t)
	ctx := context.Background()
	sink := b.Sink(t)
	repo := b.Repo(t)
	good, err := repo.Head()
	if err != nil {
		t.Fatal(err)
	}
	waitSynced(t, kube, gatewaysApp, good)

	const appFile = "examples/argocd/apps/routing-gateways.yaml"
	appYAML, err := repo.ReadFile(appFile)
	if err != nil {
		t.Fatal(err)
	}
	warnOnly := strings.Replace(appYAML, "name: FAIL_ON\n          value: error", "name: FAIL_ON\n          value: never", 1)
	if warnOnly == appYAML {
		t.Fatalf("%s has no FAIL_ON: error plugin env to turn into never", appFile)
	}
	if err := repo.WriteFile(appFile, warnOnly); err != nil {
		t.Fatal(err)
	}
	if err := repo.WriteFile(gatewaysPath+"/httproute-promo.yaml", promoRoute); err != nil {
		t.Fatal(err)
	}
	defer restore(t, b, kube, appFile, gatewaysPath+"/httproute-promo.yaml")
	// routeguard's verdict on the revision.
	out, _, _ := routeguardRun(t, b, repo.Work, "analyze", "-o", "json", "--fail-on", "never", gatewaysPath)
	var rgMsg string
	rep := decodeReport(t, out)
	for _, f := range rep.Findings {
		if f.Object.Kind == "HTTPRoute" && f.Object.Name == "promo" && strings.HasPrefix(f.Code, "RG5") {
			rgMsg = f.Code + " " + f.Message
		}
	}
	if !strings.HasPrefix(rgMsg, "RG5001") || !strings.Contains(rgMsg, "spec.hostnames[0]") {
		t.Fatalf("routeguard on HTTPRoute promo: %q, want RG5001 at spec.hostnames[0]\n%s", rgMsg, out)
	}
	rejected, err := repo.Commit("routing: promo route; routeguard in warn-only mode")
	if err != nil {
		t.Fatal(err)
	}

	var syncMsg string
	eventually(t, gatewaysApp+" sync Failed at "+short(rejected), func() (bool, string) {
		a := app(t, kube, gatewaysApp)
		phase := str(a, "status", "operationState", "phase")
		if (phase == "Failed" || phase == "Error") && str(a, "status", "operationState", "syncResult", "revision") == rejected {
			syncMsg = str(a, "status", "operationState", "message")
			if r := syncResultResource(a, "HTTPRoute", shopNS, "promo"); r != nil {
				m, _ := r["message"].(string)
				syncMsg += " | " + m
			}
			return true, ""
		}
		return false, appSummary(a)
	})
	t.Logf("routeguard said: %s", rgMsg)
	t.Logf("the sync got:    %s", syncMsg)
	if !strings.Contains(syncMsg, "spec.hostnames[0]") || !strings.Contains(syncMsg, "Promo.shop.example.com") {
		t.Errorf("the sync's failure does not name spec.hostnames[0] (what routeguard reported): %s", syncMsg)
	}
	if live, err := kube.Get(ctx, gvkHTTPRoute, shopNS, "promo"); err != nil || live != nil {
		t.Errorf("HTTPRoute promo is in the API server (err %v)", err)
	}
	eventually(t, "the sync-failed notification reaches the sink", func() (bool, string) {
		for _, m := range sink.Matching("Sync failed", gatewaysApp) {
			if strings.Contains(m.Text+m.Attachments, short(rejected)[:7]) {
				return true, ""
			}
		}
		return false, describeSink(sink)
	})
}

func syncResultResource(a *unstructured.Unstructured, kind, namespace, name string) map[string]any {
	rs, _, _ := unstructured.NestedSlice(a.Object, "status", "operationState", "syncResult", "resources")
	for _, r := range rs {
		m, _ := r.(map[string]any)
		if m["kind"] == kind && m["name"] == name && m["namespace"] == namespace {
			return m
		}
	}
	return nil
}

type jsonReport struct {
	Findings []struct {
		Code, Severity, Message string
		Object                  struct{ APIVersion, Kind, Namespace, Name string }
	}
}

func decodeReport(t *testing.T, out string) jsonReport {
	t.Helper()
	var rep jsonReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("routeguard's JSON report: %v\n%s", err, out)
	}
	return rep
}
