package istio

import (
	"context"
	"slices"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
)

// stubbed returns copies of objs as the routeguard-istio plugin receives
// them: kinds outside the analyzer's inputs reduced to apiVersion, kind,
// name and namespace.
func stubbed(t *testing.T, objs []*manifest.Object) []*manifest.Object {
	t.Helper()
	wanted := map[manifest.GroupKind]bool{}
	for _, gk := range inputs() {
		wanted[gk] = true
	}
	out := make([]*manifest.Object, 0, len(objs))
	for _, o := range objs {
		c := *o
		if !wanted[o.GroupKind()] {
			md := map[string]any{"name": o.Name}
			if o.Namespace != "" {
				md["namespace"] = o.Namespace
			}
			s, err := manifest.FromBody(map[string]any{"apiVersion": o.APIVersion, "kind": o.Kind, "metadata": md}, o.Source)
			if err != nil {
				t.Fatal(err)
			}
			c = *s
		}
		out = append(out, &c)
	}
	return out
}

// TestStubsAndReleasedBodies: what the plugin does to save memory (kinds
// it does not read arrive as stubs; bodies are dropped once converted)
// changes no finding, and does drop the bodies.
func TestStubsAndReleasedBodies(t *testing.T) {
	// An Ingress is the only object in namespace billing. It arrives as a
	// stub; either way it says nothing about the Services there, so
	// payments.billing.svc stays RG0001 (cannot be checked), not Istio's
	// IST0101 error.
	ingress, err := manifest.Decode("extra.yaml", []byte(`apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  namespace: billing
spec:
  rules:
  - host: billing.example.com
`))
	if err != nil {
		t.Fatal(err)
	}
	cases := grid
	cases = append(cases, struct {
		file string
		opts Options
		want []string
	}{file: "vs-missing-host.yaml"})
	for i, tc := range cases {
		objs := load(t, tc.file)
		if i == len(cases)-1 {
			objs = append(objs, ingress...)
		}
		whole, err := Analyze(context.Background(), objs, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		slim := stubbed(t, objs)
		opts := tc.opts
		opts.ReleaseBodies = true
		got, err := Analyze(context.Background(), slim, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(got, whole, analysis.Finding.Same) {
			t.Errorf("%s %+v: stubs and released bodies changed the findings:\n got %v\nwant %v", tc.file, tc.opts, got, whole)
		}
		for _, o := range slim {
			if o.Body != nil {
				t.Errorf("%s: %s %s/%s kept its body", tc.file, o.Kind, o.Namespace, o.Name)
				break
			}
		}
		if i == len(cases)-1 && !slices.ContainsFunc(whole, func(f analysis.Finding) bool { return f.Code == "RG0001" }) {
			t.Errorf("with only an Ingress in billing, payments.billing.svc cannot be checked (RG0001): %v", summary(whole))
		}
	}
}
