package routing

import (
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
)

// One list decides what counts as checked routing: the experimental
// channel's XListenerSet is in its own group, and Ingresses of the old
// extensions group count; OpenShift Routes and other controllers' own
// kinds are routing that routeguard does not check.
func TestCheckedKinds(t *testing.T) {
	for gk, want := range map[manifest.GroupKind]bool{
		{Group: "gateway.networking.x-k8s.io", Kind: "XListenerSet"}: true,
		{Group: "gateway.networking.k8s.io", Kind: "XListenerSet"}:   false,
		{Group: "extensions", Kind: "Ingress"}:                       true,
		{Group: "networking.k8s.io", Kind: "Ingress"}:                true,
		{Group: "networking.istio.io", Kind: "Gateway"}:              true,
		{Group: "route.openshift.io", Kind: "Route"}:                 false,
		{Group: "", Kind: "Service"}:                                 false,
	} {
		if got := IsChecked(gk); got != want {
			t.Errorf("IsChecked(%v) = %v, want %v", gk, got, want)
		}
	}
}

func TestUncheckedIn(t *testing.T) {
	set := manifest.NewSet()
	for _, doc := range []string{
		"apiVersion: route.openshift.io/v1\nkind: Route\nmetadata: {name: a, namespace: web}\n",
		"apiVersion: route.openshift.io/v1\nkind: Route\nmetadata: {name: b, namespace: web}\n",
		"apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata: {name: c, namespace: web}\n",
		"apiVersion: v1\nkind: Service\nmetadata: {name: d, namespace: web}\n",
	} {
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
	if got, want := UncheckedIn(set), "2 route.openshift.io Route, 1 projectcontour.io HTTPProxy"; got != want {
		t.Errorf("UncheckedIn = %q, want %q", got, want)
	}
	if got := UncheckedIn(manifest.NewSet()); got != "" {
		t.Errorf("UncheckedIn(empty) = %q", got)
	}
}
