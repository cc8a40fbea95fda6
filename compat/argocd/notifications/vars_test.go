package notifications

import (
	"testing"

	"github.com/argoproj/notifications-engine/pkg/services"
)

// The variables the templates see are Argo CD's: app, context, secrets,
// serviceType and the time, strings and repo helpers.
func TestTemplateVariablesAreArgoCDs(t *testing.T) {
	slack := newFakeSlack(t)
	probe := `message: >-
  {{ call .strings.ToUpper .app.metadata.name }}
  {{ (call .time.Parse .app.status.operationState.startedAt).Year }}
  {{ call .repo.FullNameByRepoURL .app.spec.source.repoURL }}
  {{ call .repo.RepoURLToHTTPS .app.spec.source.repoURL }}
  {{ .context.argocdUrl }} {{ .serviceType }} {{ len .secrets }}
`
	a := newAPI(t, slack, apiOptions{argocdURL: argocdURL, extra: map[string]string{"template.routeguard-test-vars": probe}})
	if err := a.Send(loadApp(t, "app-sync-failed.yaml"), []string{"routeguard-test-vars"}, services.Destination{Service: "slack", Recipient: "vars"}); err != nil {
		t.Fatal(err)
	}
	posts := slack.takePosts()
	if len(posts) != 1 {
		t.Fatalf("%d posts", len(posts))
	}
	want := "STOREFRONT-ROUTING 2026 acme/gitops https://github.com/acme/gitops.git " + argocdURL + " slack 2"
	if posts[0].Text != want {
		t.Errorf("variables rendered %q, want %q", posts[0].Text, want)
	}
}
