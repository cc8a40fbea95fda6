package apiserver

import (
	"strings"
	"testing"
)

const jobTemplateCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: runners.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Runner, plural: runners}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: {type: integer}
                label: {type: string, nullable: true}
                note: {type: string}
                templates:
                  type: array
                  items:
                    type: object
                    x-kubernetes-embedded-resource: true
                    x-kubernetes-preserve-unknown-fields: true
`

// TestElidedWalks: the walks routeguard skips run where they have work
// (an embedded resource in the schema, a null in the object), with the
// API server's results (validateCompared runs them all), and a schema
// without embedded resources is known as such.
func TestElidedWalks(t *testing.T) {
	c := parseCRD(t, jobTemplateCRD)
	cv, err := c.compile("v1")
	if err != nil {
		t.Fatal(err)
	}
	if !cv.elide || !cv.embedded {
		t.Fatalf("compiled Runner: elide %t, embedded %t; want both", cv.elide, cv.embedded)
	}
	if w := parseCRD(t, widgetCRD); w != nil {
		wv, err := w.compile("v1")
		if err != nil || wv.embedded {
			t.Fatalf("Widget has no embedded resource; compiled as embedded %t (%v)", wv.embedded, err)
		}
	}
	tests := []struct{ name, doc, want string }{
		{"embedded metadata coerced and validated", `{apiVersion: example.com/v1, kind: Runner, metadata: {name: a},
			spec: {templates: [{apiVersion: v1, kind: Pod, metadata: {name: "a/b"}}]}}`, `spec.templates[0].metadata.name: Invalid value: "a/b"`},
		{"embedded kind missing", `{apiVersion: example.com/v1, kind: Runner, metadata: {name: a},
			spec: {templates: [{apiVersion: v1}]}}`, "spec.templates[0].kind: Required value"},
		{"embedded apiVersion of the wrong type", `{apiVersion: example.com/v1, kind: Runner, metadata: {name: a},
			spec: {templates: [{apiVersion: 1, kind: Pod}]}}`, "spec.templates[0].apiVersion: Invalid value: 1: must be a string"},
		{"embedded unknown metadata field", `{apiVersion: example.com/v1, kind: Runner, metadata: {name: a},
			spec: {templates: [{apiVersion: v1, kind: Pod, metadata: {name: p, colour: red}}]}}`, `unknown field "spec.templates[0].metadata.colour"`},
		{"null of a non-nullable field pruned", `{apiVersion: example.com/v1, kind: Runner, metadata: {name: a}, spec: {size: null, note: null}}`, ""},
		{"null of a nullable field kept", `{apiVersion: example.com/v1, kind: Runner, metadata: {name: a}, spec: {label: null}}`, ""},
	}
	for _, tc := range tests {
		res := validateDoc(t, c, tc.doc)
		var got []string
		for _, v := range res.Violations {
			got = append(got, v.String())
		}
		all := strings.Join(got, "\n")
		if tc.want == "" && len(got) > 0 || !strings.Contains(all, tc.want) {
			t.Errorf("%s: violations\n%s\nwant one with %q", tc.name, all, tc.want)
		}
	}
}

func TestCopyBodyFindsNulls(t *testing.T) {
	for _, tc := range []struct {
		v     any
		nulls bool
	}{
		{map[string]any{"a": []any{map[string]any{"b": 1}}}, false},
		{map[string]any{"a": []any{map[string]any{"b": nil}}}, true},
		{map[string]any{"a": []any{nil}}, true},
	} {
		if _, nulls := copyBody(tc.v); nulls != tc.nulls {
			t.Errorf("copyBody(%v): nulls %t, want %t", tc.v, nulls, tc.nulls)
		}
	}
}
