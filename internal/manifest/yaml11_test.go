package manifest

import (
	"encoding/json"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"
)

// TestYAML11BooleansMatchSigsYAML: with YAML11Booleans, a scalar value
// decodes to what sigs.k8s.io/yaml (kubectl's, Argo CD's and Helm's
// decoder) makes of it; without, the 1.1-only booleans stay strings
// (Kustomize's reading).
func TestYAML11BooleansMatchSigsYAML(t *testing.T) {
	scalars := []string{
		"y", "Y", "yes", "Yes", "YES", "on", "On", "ON",
		"n", "N", "no", "No", "NO", "off", "Off", "OFF",
		"true", "True", "TRUE", "false", "False", "FALSE",
		`"yes"`, `'on'`, `"no"`, "yES", "oN", "nO", "yess", "onn",
		"~", "null", "", "1", "-3", "1.5", "0x1F", "0755", "1e3", "abc", `"1"`,
	}
	for _, s := range scalars {
		doc := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\nv: " + s + "\n"
		var want map[string]any
		if err := sigsyaml.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatalf("%q: sigs.k8s.io/yaml: %v", s, err)
		}
		objs, err := DecodeWith("t.yaml", []byte(doc), DecodeOptions{YAML11Booleans: true})
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		got, _ := json.Marshal(objs[0].Body["v"])
		exp, _ := json.Marshal(want["v"])
		if string(got) != string(exp) {
			t.Errorf("v: %s decodes to %s, sigs.k8s.io/yaml to %s", s, got, exp)
		}
		plain, err := Decode("t.yaml", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if _, only11 := yaml11Booleans[s]; only11 {
			if v, ok := plain[0].Body["v"].(string); !ok || v != s {
				t.Errorf("v: %s without YAML11Booleans = %#v, want the string", s, plain[0].Body["v"])
			}
		}
	}
}
