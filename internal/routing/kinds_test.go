package routing

import (
	"slices"
	"testing"

	"sigs.k8s.io/yaml"

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

// Mentioned reads the same list: a template declaring any checked kind
// (BackendTLSPolicy too) holds routing, one declaring another kind, or a
// name that only contains a checked kind's, does not.
func TestMentioned(t *testing.T) {
	for _, gk := range Checked {
		for _, line := range []string{"kind: " + gk.Kind, "  kind: \"" + gk.Kind + "\"", "kind: '" + gk.Kind + "'  "} {
			if !Mentioned([]byte("apiVersion: x/v1\n" + line + "\nmetadata: {name: a}\n")) {
				t.Errorf("%q is not taken for a mention of %s", line, gk.Kind)
			}
		}
	}
	for _, line := range []string{"kind: IngressRoute", "kind: Route", "kind: ConfigMap", "kind: HTTPRouteList", "kind: MyGateway", "# kind: HTTPRoute", "name: HTTPRoute"} {
		if Mentioned([]byte(line + "\n")) {
			t.Errorf("%q is taken for a mention of a routing kind", line)
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

// TestValuesRouting: routing values are what turns routes or Ingresses on
// or names their hosts (app-template's route.<name>, a chart's
// ingress.enabled), not a section of settings (mimir's gateway, an ingress
// at its disabled default).
func TestValuesRouting(t *testing.T) {
	for _, tc := range []struct {
		values string
		want   []string
	}{
		{"route: {app: {hostnames: [a.example.com], parentRefs: [{name: gw}]}}", []string{"route"}},
		{"ingress: {app: {className: nginx, hosts: [{host: a.example.com}]}}", []string{"ingress"}},
		{"ingress: {enabled: true}\nhttpRoute: {enabled: false, hostnames: [a]}", []string{"ingress"}},
		{"ingress: {className: nginx, annotations: {a: b}}", nil},
		{"gateway: {replicas: 3, ingress: {enabled: true}}", nil},
		{"route: {app: {enabled: false, hostnames: [a]}}", nil},
	} {
		var v map[string]any
		if err := yaml.Unmarshal([]byte(tc.values), &v); err != nil {
			t.Fatal(err)
		}
		if got := ValuesRouting(v); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.values, got, tc.want)
		}
	}
}
