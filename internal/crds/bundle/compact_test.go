package bundle

import (
	"encoding/json"
	"testing"
)

// TestCompactCRD: the schemas' descriptions go, at every depth (properties,
// items, additionalProperties, allOf); a property named description, the
// defaults, enums and rules stay, and the output is the same bytes every
// time.
func TestCompactCRD(t *testing.T) {
	doc := []byte(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        description: A widget.
        type: object
        properties:
          spec:
            description: What the widget is.
            type: object
            x-kubernetes-validations:
            - {rule: "self.size > 0", message: "size must be positive"}
            properties:
              description: {type: string, description: "the widget's own description field", default: "none"}
              size: {type: integer, default: 3, description: how big}
              mode: {type: string, enum: [a, b], description: the mode}
              parts:
                type: array
                description: the parts
                items: {type: object, description: a part, properties: {name: {type: string, description: its name}}}
              labels:
                type: object
                additionalProperties: {type: string, description: a label}
              either:
                description: int or string
                x-kubernetes-int-or-string: true
                allOf: [{description: first, anyOf: [{type: integer}, {type: string}]}]
`)
	got, err := compactCRD(doc)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := compactCRD(doc)
	if string(got) != string(again) {
		t.Error("the same CRD gave different bytes")
	}
	var crd map[string]any
	if err := json.Unmarshal(got, &crd); err != nil {
		t.Fatal(err)
	}
	schema := crd["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)
	spec := schema["properties"].(map[string]any)["spec"].(map[string]any)
	props := spec["properties"].(map[string]any)
	var descriptions []string
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if k == "description" && path != "spec.properties" {
					descriptions = append(descriptions, path)
				}
				walk(e, path+"."+k)
			}
		case []any:
			for _, e := range v {
				walk(e, path+"[]")
			}
		}
	}
	walk(spec, "spec")
	if _, ok := schema["description"]; ok {
		descriptions = append(descriptions, "root")
	}
	if len(descriptions) > 0 {
		t.Errorf("descriptions left at %v", descriptions)
	}
	if d, ok := props["description"].(map[string]any); !ok || d["default"] != "none" || d["type"] != "string" {
		t.Errorf("the property named description: %v", props["description"])
	}
	if props["size"].(map[string]any)["default"] != float64(3) || len(props["mode"].(map[string]any)["enum"].([]any)) != 2 {
		t.Errorf("defaults or enums lost: %v", props)
	}
	if rules := spec["x-kubernetes-validations"].([]any); rules[0].(map[string]any)["rule"] != "self.size > 0" {
		t.Errorf("rules: %v", rules)
	}
}
