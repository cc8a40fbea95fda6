// Scenario 4 (coexistence, as installed) failed on the configuration shipped
// before issue 30 (cmp/plugin.yaml's discovery rule took Helm and Kustomize
// apps from Argo CD's own tools, and the notification bundle replaced the
// catalog's triggers of the same name); it passes since the plugin discovers
// nothing and the triggers are named on-routeguard-*. Its repo-server has
// helm and kustomize on its PATH (e2e/tools/argocd-tools, the versions Argo
// CD v3.5.7 ships), as Argo CD's image has.

package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/e2e/testbed"
)

// TestCoexistenceAsInstalled (scenario 4): with routeguard's shipped cmp/
// configuration and notification bundle applied over Argo CD's defaults and
// catalog, a plain Helm chart with an Ingress template and a plain Kustomize
// app with an Ingress are rendered by Argo CD's own Helm and Kustomize (their
// Applications do not name the plugin), and the catalog's own
// on-sync-succeeded trigger still fires for an app without routing.
func TestCoexistenceAsInstalled(t *testing.T) {
	b := testbed.Get(t)
	b.Argo(t)
	kube := b.Kube(t)
	sink := b.Sink(t)
	repo := b.Repo(t)
	ctx := context.Background()
	if err := testbed.CopyTree(filepath.Join(b.RepoRoot, "e2e", "testdata", "coexist"), filepath.Join(repo.Work, "coexist")); err != nil {
		t.Fatal(err)
	}
	rev, err := repo.Commit("coexist: a Helm chart, a Kustomize app, an app without routing")
	if err != nil {
		t.Fatal(err)
	}
	apps := []struct{ name, path, wantType string }{
		{"coexist-helm", "coexist/helm-ingress", "Helm"},
		{"coexist-kustomize", "coexist/kustomize-plain", "Kustomize"},
		{"coexist-plain", "coexist/no-routing", "Directory"},
	}
	for _, a := range apps {
		manifest := fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: %s
  namespace: argocd
  annotations:
    notifications.argoproj.io/subscribe.on-sync-succeeded.slack: coexist
spec:
  project: default
  source: {repoURL: %s, targetRevision: main, path: %s}
  destination: {server: https://kubernetes.default.svc, namespace: coexist}
  syncPolicy:
    automated: {}
    syncOptions: [CreateNamespace=true]
`, a.name, repo.URL, a.path)
		if err := kube.ApplyYAML(ctx, []byte(manifest)); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range apps {
		waitSynced(t, kube, a.name, rev)
		got := str(app(t, kube, a.name), "status", "sourceType")
		if got != a.wantType {
			t.Errorf("%s (%s) rendered as %s, want %s: Argo CD's own tool (the Application does not name routeguard's plugin)", a.name, a.path, got, a.wantType)
		}
	}
	eventually(t, "the catalog's on-sync-succeeded notification for coexist-plain", func() (bool, string) {
		for _, m := range sink.Matching("coexist-plain") {
			// The catalog's app-sync-succeeded: "Application <name> has
			// been successfully synced at <time>."
			if m.Channel == "coexist" && strings.Contains(m.Text+m.Attachments, "successfully synced") {
				return true, ""
			}
		}
		return false, describeSink(sink)
	})
}
