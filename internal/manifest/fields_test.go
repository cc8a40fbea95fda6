package manifest

import "testing"

const fieldsDoc = `# a comment
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: shop
  labels:
    app.kubernetes.io/name: shop
spec:
  parentRefs:
  - name: public
  rules:
  - matches:
    - path:
        type: PathPrefix
        value: /
  - matches:
    - path: {type: Exact, value: /cart}
    backendRefs:
    - name: cart
      port: 80
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Service
  metadata:
    name: a
  spec:
    ports:
    - port: 80
- apiVersion: v1
  kind: Service
  metadata:
    name: b
  spec:
    ports:
    - port: 81
      "0": zero
---
base: &base
  port: 9090
  protocol: TCP
apiVersion: v1
kind: Service
metadata:
  name: merged
spec:
  ports:
  - <<: *base
    name: metrics
`

func TestFieldSource(t *testing.T) {
	objs, err := Decode("f.yaml", []byte(fieldsDoc))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Object{}
	for _, o := range objs {
		byName[o.Name] = o
	}
	tests := []struct {
		name, object, path string
		want               int
	}{
		{"top-level key", "shop", "spec", 8},
		{"nested key", "shop", "spec.rules[0].matches[0].path.value", 15},
		{"second list item", "shop", "spec.rules[1]", 16},
		{"flow mapping", "shop", "spec.rules[1].matches[0].path.value", 17},
		{"deeper list", "shop", "spec.rules[1].backendRefs[0].port", 20},
		{"map key with dots in brackets", "shop", "metadata.labels[app.kubernetes.io/name]", 7},
		{"missing field: nearest ancestor", "shop", "spec.rules[1].backendRefs[0].weight", 19},
		{"missing index: nearest ancestor", "shop", "spec.rules[7].matches", 11},
		{"unknown root field: the object", "shop", "status.parents", 2},
		{"list item", "a", "spec.ports[0].port", 31},
		{"second list item", "b", "spec.ports[0].port", 38},
		{"numeric map key is a key", "b", "spec.ports[0][0]", 39},
		{"merge key: the anchor's line", "merged", "spec.ports[0].protocol", 43},
		{"merge key: own key", "merged", "spec.ports[0].name", 51},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := byName[tc.object]
			if o == nil {
				t.Fatalf("no object %s", tc.object)
			}
			if got := o.FieldSource(tc.path); got.Line != tc.want || got.File != "f.yaml" {
				t.Errorf("FieldSource(%q) = %s, want f.yaml:%d", tc.path, got, tc.want)
			}
		})
	}
}

func TestFieldSourceWithoutIndex(t *testing.T) {
	o := &Object{Source: Source{File: "chart/templates/x.yaml"}}
	if got := o.FieldSource("spec.rules[0]"); got != o.Source {
		t.Errorf("got %s, want the object's source", got)
	}
}

func TestSplitFieldPath(t *testing.T) {
	got := splitFieldPath("a.b[0].c[x.y][z]")
	want := []pathSegment{{"a", false}, {"b", false}, {"0", true}, {"c", false}, {"x.y", true}, {"z", true}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("segment %d = %v, want %v", i, got[i], want[i])
		}
	}
}
