package manifest

import (
	"strings"
	"testing"
)

// TestShapeErrors: fields that are there but wrong are named for what is
// wrong with them, at their line.
func TestShapeErrors(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
	for _, tc := range []struct{ name, in, want string }{
		{"bom before the second document", cm + "---\n\ufeffapiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n",
			`f.yaml:6: the document starts with a byte order mark (U+FEFF) before "apiVersion"; only the start of a file may have one`},
		{"apiVersion a number", "apiVersion: 5\nkind: ConfigMap\nmetadata:\n  name: a\n", "f.yaml:1: apiVersion is the number 5, not a string"},
		{"kind a list", "apiVersion: v1\nkind: [ConfigMap]\nmetadata:\n  name: a\n", "f.yaml:2: kind is a list, not a string"},
		{"name a number", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 123\n", `f.yaml:4: metadata.name is the number 123, not a string; quote it (name: "123")`},
		{"metadata a string", "apiVersion: v1\nkind: ConfigMap\nmetadata: x\n", "f.yaml:3: metadata is a string, not a mapping"},
		{"list in a list", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: x}\n",
			"f.yaml:4: item 0 of List is itself a List; a List inside a List is not unpacked"},
		{"list item a number apiVersion", "apiVersion: v1\nkind: List\nitems:\n- kind: ConfigMap\n  apiVersion: 1.0\n  metadata: {name: x}\n",
			"f.yaml:5: apiVersion is the number 1, not a string"},
		{"still missing", "apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n", "f.yaml:1: object has no metadata.name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("f.yaml", []byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v\nwant %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "has no") && !strings.Contains(tc.want, "has no") {
				t.Errorf("still says 'has no': %v", err)
			}
		})
	}
}
