package apiserver

import (
	"context"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const widgetCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
    - name: v1
      served: true
      storage: true
      subresources: {status: {}}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              x-kubernetes-validations:
                - rule: "self.mode != 'fast' || self.replicas <= 3"
                  message: fast mode allows at most 3 replicas
                - rule: "self.mode.startsWith('f') || self.mode == 'slow'"
                  messageExpression: "'mode ' + self.mode + ' is unknown'"
              properties:
                mode: {type: string, default: fast}
                replicas: {type: integer, default: 5}
                extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
                tags:
                  type: array
                  x-kubernetes-list-type: set
                  items: {type: string}
            status:
              type: object
              properties:
                ready: {type: boolean}
    - name: v2
      served: false
      storage: false
      schema:
        openAPIV3Schema: {type: object}
`

func parseCRD(t *testing.T, doc string) *CRD {
	t.Helper()
	var body map[string]any
	if err := yaml.Unmarshal([]byte(doc), &body); err != nil {
		t.Fatal(err)
	}
	c, err := ParseCRD(deepCopyJSON(body).(map[string]any), "test CRD")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func validateDoc(t *testing.T, c *CRD, doc string) *Result {
	t.Helper()
	var body map[string]any
	if err := yaml.Unmarshal([]byte(doc), &body); err != nil {
		t.Fatal(err)
	}
	res, err := validateCompared(t, c, "v1", "apps", body)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestValidateCustomResource(t *testing.T) {
	c := parseCRD(t, widgetCRD)
	if got := strings.Join(c.ServedVersions(), ","); got != "v1" || c.Kind != "Widget" || !c.NamespaceScoped() {
		t.Fatalf("parsed %+v, served %s", c, got)
	}
	tests := []struct {
		name string
		doc  string
		want []string // "class field: substring"
	}{
		{"defaults applied before the rules: fast with 5 replicas", `{apiVersion: example.com/v1, kind: Widget, metadata: {name: a}, spec: {}}`,
			[]string{"3 spec: fast mode allows at most 3 replicas"}},
		{"explicit values pass", `{apiVersion: example.com/v1, kind: Widget, metadata: {name: a}, spec: {mode: slow}}`, nil},
		{"messageExpression", `{apiVersion: example.com/v1, kind: Widget, metadata: {name: a}, spec: {mode: turbo}}`,
			[]string{"3 spec: mode turbo is unknown"}},
		{"status is dropped on create", `{apiVersion: example.com/v1, kind: Widget, metadata: {name: a}, spec: {mode: slow}, status: {ready: maybe}}`, nil},
		{"preserved unknown fields", `{apiVersion: example.com/v1, kind: Widget, metadata: {name: a}, spec: {mode: slow, extra: {any: [1, 2]}}}`, nil},
		{"unknown fields at every level", `{apiVersion: example.com/v1, kind: Widget, metadata: {name: a, colour: red}, spec: {mode: slow, size: 3}, top: 1}`,
			[]string{`1 metadata.colour: unknown field "metadata.colour"`, `1 spec.size: unknown field "spec.size"`, `1 top: unknown field "top"`}},
		{"list-type set", `{apiVersion: example.com/v1, kind: Widget, metadata: {name: a}, spec: {mode: slow, tags: [a, a]}}`,
			[]string{`2 spec.tags[1]: Duplicate value: "a"`}},
		{"type error blocks the rules", `{apiVersion: example.com/v1, kind: Widget, metadata: {name: a}, spec: {mode: 7}}`,
			[]string{"2 spec.mode: must be of type string"}},
		{"metadata.name", `{apiVersion: example.com/v1, kind: Widget, metadata: {name: Not_Valid}, spec: {mode: slow}}`,
			[]string{"2 metadata.name: Invalid value: \"Not_Valid\""}},
		{"metadata of the wrong type", `{apiVersion: example.com/v1, kind: Widget, metadata: {name: a, labels: [x]}, spec: {mode: slow}}`,
			[]string{"2 metadata: does not decode as ObjectMeta"}},
	}
	for _, tc := range tests {
		res := validateDoc(t, c, tc.doc)
		var got []string
		for _, v := range res.Violations {
			got = append(got, v.String())
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
			continue
		}
		for i, w := range tc.want {
			class, rest, _ := strings.Cut(w, " ")
			field, msg, _ := strings.Cut(rest, ": ")
			v := res.Violations[i]
			if string(rune('0'+v.Class)) != class || v.Field != field || !strings.Contains(v.Message, msg) {
				t.Errorf("%s: violation %d = class %d %q, want %s", tc.name, i, v.Class, got[i], w)
			}
		}
		if tc.name == "type error blocks the rules" && !res.RulesSkipped {
			t.Errorf("%s: rules not marked skipped", tc.name)
		}
	}
	if _, err := c.ValidateCustomResource(context.Background(), "v3", "apps", map[string]any{}); err == nil {
		t.Error("validating against a version the CRD lacks gave no error")
	}
}

func TestRuleThatDoesNotCompile(t *testing.T) {
	c := parseCRD(t, strings.Replace(widgetCRD, `rule: "self.mode != 'fast' || self.replicas <= 3"`, `rule: "self.mode.noSuchFunction()"`, 1))
	res := validateDoc(t, c, `{apiVersion: example.com/v1, kind: Widget, metadata: {name: a}, spec: {mode: slow}}`)
	if len(res.Violations) != 1 || res.Violations[0].Class != Uncheckable || !strings.Contains(res.Violations[0].Message, "compile") {
		t.Errorf("got %v", res.Violations)
	}
}

func TestParseCRDErrors(t *testing.T) {
	for name, doc := range map[string]string{
		"v1beta1":      `{apiVersion: apiextensions.k8s.io/v1beta1, kind: CustomResourceDefinition, metadata: {name: a.b}, spec: {group: b, names: {kind: A, plural: a}}}`,
		"no group":     `{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: a}, spec: {names: {kind: A, plural: a}}}`,
		"wrong shapes": `{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: a}, spec: {group: b, names: [x]}}`,
	} {
		var body map[string]any
		if err := yaml.Unmarshal([]byte(doc), &body); err != nil {
			t.Fatal(err)
		}
		if _, err := ParseCRD(body, "f.yaml:1"); err == nil || !strings.HasPrefix(err.Error(), "f.yaml:1: ") {
			t.Errorf("%s: error %v", name, err)
		}
	}
}
