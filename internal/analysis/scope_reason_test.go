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

// TestWhyUncheckedLikeliestMaker: the scope named is the one whose maker
// (a HelmRelease's release name, an Application's chart) the absent
// object is named after, or whose path holds the referring file, before
// one that merely shares its namespace; the others are counted.
func TestWhyUncheckedLikeliestMaker(t *testing.T) {
	scopes := []UnrenderedScope{
		{Namespace: "media", Reason: "HelmRelease media/bazarr was not built here", Makers: []string{"bazarr"}},
		{Namespace: "media", Reason: "HelmRelease media/jellyfin-app was not built here", Makers: []string{"jellyfin-app", "jellyfin"}},
		{Namespace: "*", Reason: "Kustomization flux-system/media-extras was not built here", Paths: []string{"kubernetes/apps/media/extras"}},
	}
	c := newContext(RunOptions{Set: manifest.NewSet(), Unrendered: scopes})
	svc := manifest.Key{Kind: "Service", Namespace: "media", Name: "jellyfin"}
	if why, _ := c.whyUnchecked(svc, "kubernetes/apps/media/jellyfin/route.yaml"); !strings.Contains(why, "(HelmRelease media/jellyfin-app was not built here; and 2 more)") {
		t.Errorf("by release name: %s", why)
	}
	svc.Name = "tdarr"
	if why, _ := c.whyUnchecked(svc, "kubernetes/apps/media/extras/route.yaml"); !strings.Contains(why, "(Kustomization flux-system/media-extras was not built here; and 2 more)") {
		t.Errorf("by path: %s", why)
	}
	if why, _ := c.whyUnchecked(svc, "elsewhere/route.yaml"); !strings.Contains(why, "(HelmRelease media/bazarr was not built here; and 2 more)") {
		t.Errorf("by namespace: %s", why)
	}
}

// TestOperatorMayMakeIt: any custom resource of a kind routeguard does not
// model may make a Service in its namespace (RG0001, not dangling); one
// named like the Service is named first; kinds that make no Service
// (ServiceMonitor) do not count.
func TestOperatorMayMakeIt(t *testing.T) {
	objs, err := manifest.Decode("a.yaml", []byte(`apiVersion: v1
kind: Namespace
metadata: {name: db}
---
apiVersion: postgresql.cnpg.io/v1
kind: Cluster
metadata: {name: pg, namespace: db}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: gadget, namespace: db}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: mon, namespace: mon}
---
apiVersion: v1
kind: Namespace
metadata: {name: mon}
`))
	if err != nil {
		t.Fatal(err)
	}
	set := manifest.NewSet()
	if err := set.AddAll(objs); err != nil {
		t.Fatal(err)
	}
	c := newContext(RunOptions{Set: set})
	if _, scope := c.Resolve(manifest.Key{Kind: "Service", Namespace: "db", Name: "nothing"}); scope != ScopeOutside {
		t.Errorf("a Service beside a custom resource: %v", scope)
	}
	why, _ := c.WhyUnchecked(manifest.Key{Kind: "Service", Namespace: "db", Name: "gadget-api"})
	if !strings.Contains(why, "the operator of Widget db/gadget (and 1 more custom resources there)") {
		t.Errorf("named: %s", why)
	}
	why, _ = c.WhyUnchecked(manifest.Key{Kind: "Service", Namespace: "db", Name: "nothing"})
	if !strings.Contains(why, `namespace "db" holds Cluster db/pg (and 1 more custom resources there), a custom resource routeguard does not model`) {
		t.Errorf("unnamed: %s", why)
	}
	if _, scope := c.Resolve(manifest.Key{Kind: "Service", Namespace: "mon", Name: "nothing"}); scope != ScopeMissing {
		t.Errorf("a ServiceMonitor makes no Service: %v", scope)
	}
}

// TestNamedOperatorBeforeScopes: a custom resource named like the absent
// Service (Grafana "grafana" for grafana-service) is named before the
// namespace's unrendered HelmReleases, which name it only by namespace.
func TestNamedOperatorBeforeScopes(t *testing.T) {
	objs, err := manifest.Decode("a.yaml", []byte("apiVersion: grafana.integreatly.org/v1beta1\nkind: Grafana\nmetadata: {name: grafana, namespace: observability}\n"))
	if err != nil {
		t.Fatal(err)
	}
	set := manifest.NewSet()
	if err := set.AddAll(objs); err != nil {
		t.Fatal(err)
	}
	c := newContext(RunOptions{Set: set, Unrendered: []UnrenderedScope{{Namespace: "observability", Reason: "HelmRelease observability/prometheus-operator-crds was not built here"}}})
	why, _ := c.WhyUnchecked(manifest.Key{Kind: "Service", Namespace: "observability", Name: "grafana-service"})
	if !strings.Contains(why, "the operator of Grafana observability/grafana may create it") {
		t.Errorf("why: %s", why)
	}
}

// TestNamedReleaseBeforeNamedOperator: an unrendered HelmRelease named
// like the absent Service (loki for Service loki) is named before a
// custom resource of the same name (a GrafanaDatasource loki), whose
// operator makes no such Service; a release named otherwise is not.
func TestNamedReleaseBeforeNamedOperator(t *testing.T) {
	objs, err := manifest.Decode("a.yaml", []byte("apiVersion: grafana.integreatly.org/v1beta1\nkind: GrafanaDatasource\nmetadata: {name: loki, namespace: observability}\n"))
	if err != nil {
		t.Fatal(err)
	}
	set := manifest.NewSet()
	if err := set.AddAll(objs); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ release, want string }{
		{"loki", "it may be among the objects routeguard could not render (HelmRelease observability/loki was not built here)"},
		{"tempo", "the operator of GrafanaDatasource observability/loki may create it"},
	} {
		c := newContext(RunOptions{Set: set, Unrendered: []UnrenderedScope{{Namespace: "observability", Makers: []string{tc.release},
			Reason: "HelmRelease observability/" + tc.release + " was not built here"}}})
		why, _ := c.WhyUnchecked(manifest.Key{Kind: "Service", Namespace: "observability", Name: "loki"})
		if !strings.Contains(why, tc.want) {
			t.Errorf("release %s: why: %s", tc.release, why)
		}
	}
}
