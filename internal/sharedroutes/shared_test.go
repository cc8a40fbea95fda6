package sharedroutes

import (
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/routemap"
)

func TestKeyOf(t *testing.T) {
	for name, want := range map[string]manifest.Key{
		"HTTPRoute team/web":             {Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Namespace: "team", Name: "web"},
		"Gateway infra/public":           {Group: "gateway.networking.k8s.io", Kind: "Gateway", Namespace: "infra", Name: "public"},
		"Istio Gateway istio/ingress":    {Group: "networking.istio.io", Kind: "Gateway", Namespace: "istio", Name: "ingress"},
		"VirtualService bookinfo/review": {Group: "networking.istio.io", Kind: "VirtualService", Namespace: "bookinfo", Name: "review"},
	} {
		if got, ok := keyOf(name); !ok || got != want {
			t.Errorf("keyOf(%q) = %+v, %v; want %+v", name, got, ok, want)
		}
	}
	for _, name := range []string{"mesh Service a/b", "Ingress class nginx", "Gateway nameonly"} {
		if _, ok := keyOf(name); ok {
			t.Errorf("keyOf(%q) is a key", name)
		}
	}
}

// A route of the same owner as its Gateway is not shared; one of another
// owner is, and so is a change to the Gateway it uses.
func TestFind(t *testing.T) {
	gw := mustObject(t, map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
		"metadata": map[string]any{"name": "public", "namespace": "infra"}, "spec": map[string]any{"gatewayClassName": "a"}})
	gw2 := mustObject(t, map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
		"metadata": map[string]any{"name": "public", "namespace": "infra"}, "spec": map[string]any{"gatewayClassName": "b"}})
	route := mustObject(t, map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
		"metadata": map[string]any{"name": "web", "namespace": "team"}})
	set := func(objs ...*manifest.Object) *manifest.Set {
		s := manifest.NewSet()
		for _, o := range objs {
			if err := s.Add(o); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	att := routemap.Attachment{Route: "HTTPRoute team/web", Parent: "Gateway infra/public", State: routemap.Attached}
	m := &routemap.Map{Attachments: []routemap.Attachment{att}}
	platform, team := pipeline.Owner{Kind: "Application", Name: "argocd/platform", Project: "platform"}, pipeline.Owner{Kind: "Application", Name: "argocd/team", Project: "teams"}
	owners := map[manifest.Key]pipeline.Owner{gw.Key(): platform, route.Key(): team}
	base := Revision{Map: m, Set: set(gw, route), Owners: owners}
	head := Revision{Map: m, Set: set(gw2, route), Owners: owners}
	diff := &routemap.Diff{Attachments: []routemap.AttachmentChange{{Change: routemap.Added, Head: &att}}}
	items := Find(base, head, diff, nil)
	if len(items) != 2 || items[0].Route != "" || items[0].Change != routemap.Changed || items[1].Route != "HTTPRoute team/web" || *items[1].RouteOwner != team {
		t.Fatalf("items %+v", items)
	}
	same := map[manifest.Key]pipeline.Owner{gw.Key(): platform, route.Key(): platform}
	if items := Find(Revision{Map: m, Set: set(gw, route), Owners: same}, Revision{Map: m, Set: set(gw2, route), Owners: same}, diff, nil); len(items) != 0 {
		t.Errorf("one owner: items %+v", items)
	}
}

func mustObject(t *testing.T, body map[string]any) *manifest.Object {
	t.Helper()
	o, err := manifest.FromBody(body, manifest.Source{File: "x.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	return o
}
