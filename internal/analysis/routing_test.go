package analysis

import (
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
)

func setOf(t *testing.T, docs ...string) *manifest.Set {
	t.Helper()
	set := manifest.NewSet()
	for _, doc := range docs {
		objs, err := manifest.Decode("x.yaml", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			if err := set.Add(o); err != nil {
				t.Fatal(err)
			}
		}
	}
	return set
}

// A tree that holds only OpenShift Routes checked nothing, and RG0100 says
// why: routeguard does not check that kind. An experimental XListenerSet is
// routing that is checked.
func TestNothingCheckedNamesUncheckedKinds(t *testing.T) {
	routes := setOf(t, "apiVersion: route.openshift.io/v1\nkind: Route\nmetadata: {name: web, namespace: web}\n",
		"apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: web}\n")
	f, ok := NothingChecked(routes, ObjectRef{Kind: "Kustomization", Name: "apps"}, manifest.Source{}, 0)
	if !ok || !strings.Contains(f.Message, "holds no routing object (it produced 2 objects;") || !strings.Contains(f.Message, "it holds 1 route.openshift.io Route, which routeguard does not check") {
		t.Errorf("RG0100 = %v %q", ok, f.Message)
	}
	ls := setOf(t, "apiVersion: gateway.networking.x-k8s.io/v1alpha1\nkind: XListenerSet\nmetadata: {name: l, namespace: web}\n")
	if _, ok := NothingChecked(ls, ObjectRef{}, manifest.Source{}, 0); ok {
		t.Error("an XListenerSet is checked routing, yet RG0100")
	}
}

// RG0100 counts in English: one object, one object not built.
func TestNothingCheckedSingular(t *testing.T) {
	one := setOf(t, "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: web}\n")
	detail, ok := NothingCheckedDetail(one, 1)
	if !ok || !strings.Contains(detail, "it produced 1 object;") || !strings.Contains(detail, "1 object of the tree was skipped or failed to build") {
		t.Errorf("detail = %v %q", ok, detail)
	}
}
