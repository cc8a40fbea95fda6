package apiserver

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/crds"
)

const gadgetCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Gadget, plural: gadgets}
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
                replicas: {type: integer, default: 1}
                mode: {type: string}
                plain:
                  type: object
                  properties:
                    a: {type: string}
                    b: {type: array, items: {type: string}}
                weights:
                  type: object
                  additionalProperties:
                    type: object
                    properties:
                      weight: {type: integer, default: 5}
                      note: {type: string}
                ports:
                  type: array
                  x-kubernetes-list-type: map
                  x-kubernetes-list-map-keys: [name]
                  items:
                    type: object
                    required: [name]
                    properties:
                      name: {type: string}
                      protocol: {type: string, default: TCP}
                      hosts: {type: array, x-kubernetes-list-type: set, items: {type: string}}
                tags: {type: array, x-kubernetes-list-type: set, items: {type: string}}
                atomic: {type: array, x-kubernetes-list-type: atomic, items: {type: string}}
                levels:
                  type: array
                  items: {type: string, nullable: false, default: low}
`

// TestWalkSchemas: the defaulting and list-type walks given the parts of
// the schema they act on change and report exactly what they do with the
// whole schema, and those parts leave out the nodes without a default
// (or a set/map list type) below them.
func TestWalkSchemas(t *testing.T) {
	c := parseCRD(t, gadgetCRD)
	cv, err := c.compile("v1")
	if err != nil {
		t.Fatal(err)
	}
	spec := func(s *structuralschema.Structural) *structuralschema.Structural {
		if s == nil {
			return nil
		}
		if p, ok := s.Properties["spec"]; ok {
			return &p
		}
		return nil
	}
	if d := spec(cv.defaulting); d == nil {
		t.Fatal("the defaulting schema has no spec")
	} else {
		if got, want := sortedKeys(d.Properties), []string{"levels", "ports", "replicas", "weights"}; !slices.Equal(got, want) {
			t.Errorf("defaulting schema of spec: properties %v, want %v", got, want)
		}
		if ports := d.Properties["ports"]; ports.Items == nil || !slices.Equal(sortedKeys(ports.Items.Properties), []string{"protocol"}) {
			t.Errorf("defaulting schema of spec.ports: %+v", ports.Items)
		}
	}
	if l := spec(cv.listTypes); l == nil {
		t.Fatal("the list-type schema has no spec")
	} else {
		if got, want := sortedKeys(l.Properties), []string{"ports", "tags"}; !slices.Equal(got, want) {
			t.Errorf("list-type schema of spec: properties %v, want %v", got, want)
		}
		if ports := l.Properties["ports"]; ports.Items == nil || !slices.Equal(sortedKeys(ports.Items.Properties), []string{"hosts"}) {
			t.Errorf("list-type schema of spec.ports: %+v", ports.Items)
		}
	}

	docs := []string{
		`{spec: {}}`,
		`{spec: {replicas: 3, mode: a, plain: {a: x, b: [y]}}}`,
		`{spec: {weights: {a: {}, b: {weight: 2}, c: null, d: {weight: null}}}}`,
		`{spec: {ports: [{name: a}, {name: b, protocol: UDP}, {name: a}, null], tags: [x, y, x], atomic: [z, z]}}`,
		`{spec: {ports: [{name: a, hosts: [h, h]}, {name: b, hosts: [h]}], levels: [high, null]}}`,
		`{spec: {ports: [7, {name: a}], tags: [[1], [1]], replicas: null}}`,
		`{spec: null}`,
		`{other: {x: 1}}`,
	}
	for _, doc := range docs {
		var body map[string]any
		if err := yaml.Unmarshal([]byte(doc), &body); err != nil {
			t.Fatal(err)
		}
		whole, part := deepCopyJSON(body), deepCopyJSON(body)
		structuraldefaulting.Default(whole, cv.structural)
		structuraldefaulting.Default(part, cv.defaulting)
		if !reflect.DeepEqual(whole, part) {
			t.Errorf("%s: defaulted with the whole schema %v, with its defaulting part %v", doc, whole, part)
		}
		errsWhole := errorStrings(structurallisttype.ValidateListSetsAndMaps(nil, cv.structural, whole.(map[string]any)))
		errsPart := errorStrings(structurallisttype.ValidateListSetsAndMaps(nil, cv.listTypes, whole.(map[string]any)))
		if !slices.Equal(errsWhole, errsPart) {
			t.Errorf("%s: list types with the whole schema %v, with its part %v", doc, errsWhole, errsPart)
		}
		obj := map[string]any{"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": map[string]any{"name": "g"}}
		for k, v := range body {
			obj[k] = v
		}
		if _, err := validateCompared(t, c, "v1", "apps", obj); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}

	// Every bundled CRD version: the parts hold no node without work below.
	idx := crds.Bundled()
	for _, e := range idx.CRDs {
		crd, err := bundledCRD(idx, e)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range crd.ServedVersions() {
			cv, err := crd.compile(v)
			if err != nil {
				t.Fatalf("%s %s: %v", e.Kind, v, err)
			}
			name := fmt.Sprintf("%s %s %s", e.Channel, e.Kind, v)
			checkPart(t, name+" defaulting", cv.defaulting, func(s *structuralschema.Structural) bool { return s.Default.Object != nil })
			checkPart(t, name+" list types", cv.listTypes, func(s *structuralschema.Structural) bool { return s.XListType != nil })
		}
	}
}

// checkPart fails unless every node of part (but the empty properties
// kept beside additionalProperties) has a node below it, itself included,
// for which work is true.
func checkPart(t *testing.T, name string, part *structuralschema.Structural, work func(*structuralschema.Structural) bool) {
	t.Helper()
	var has func(s *structuralschema.Structural, path string) bool
	has = func(s *structuralschema.Structural, path string) bool {
		found := work(s)
		for k := range s.Properties {
			p := s.Properties[k]
			if has(&p, path+"."+k) {
				found = true
			} else if s.AdditionalProperties == nil {
				t.Errorf("%s: %s.%s has nothing to do below it", name, path, k)
			}
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil && has(s.AdditionalProperties.Structural, path+"[*]") {
			found = true
		}
		if s.Items != nil && has(s.Items, path+"[]") {
			found = true
		}
		return found
	}
	if part != nil && !has(part, "") {
		t.Errorf("%s: nothing to do, want nil", name)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func errorStrings(errs field.ErrorList) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, e.Error())
	}
	slices.Sort(out)
	return out
}
