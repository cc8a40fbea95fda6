package analysis

import (
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
)

// TestWhyUncheckedBestScope: of several unrendered scopes covering an
// absent object, the message names the one whose reason names the object,
// else the one of its namespace, and counts the others.
func TestWhyUncheckedBestScope(t *testing.T) {
	scopes := []UnrenderedScope{
		{Namespace: "*", Reason: "Kustomization flux-system/crds was not built here"},
		{Namespace: "web", Reason: "HelmRelease web/other was not built here"},
		{Namespace: "web", Reason: "HelmRelease web/podinfo was not built here"},
	}
	c := newContext(RunOptions{Set: manifest.NewSet(), Unrendered: scopes})
	svc := manifest.Key{Kind: "Service", Namespace: "web", Name: "podinfo"}
	if why, _ := c.WhyUnchecked(svc); !strings.Contains(why, "(HelmRelease web/podinfo was not built here; and 2 more)") {
		t.Errorf("named: %s", why)
	}
	svc.Name = "nothing-names-me"
	if why, _ := c.WhyUnchecked(svc); !strings.Contains(why, "(HelmRelease web/other was not built here; and 2 more)") {
		t.Errorf("namespace: %s", why)
	}
	svc.Namespace = "elsewhere"
	if why, _ := c.WhyUnchecked(svc); !strings.Contains(why, "(Kustomization flux-system/crds was not built here)") {
		t.Errorf("any namespace: %s", why)
	}
}
