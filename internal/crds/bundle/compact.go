package bundle

import (
	"encoding/json"
	"fmt"

	"github.com/routeguard/routeguard/internal/manifest"
)

// compactCRD turns one upstream CRD document (YAML) into the JSON routeguard
// embeds: the same object without the descriptions of its schemas. The
// descriptions are two thirds of Gateway API's CRDs and nothing validates
// against them; loading HTTPRoute's CRD took 20 ms from YAML and takes 4 ms
// from this (BenchmarkCompile in internal/apiserver). encoding/json sorts
// the keys, so the same CRD gives the same bytes.
func compactCRD(doc []byte) ([]byte, error) {
	// Decoded as routeguard decodes manifests (timestamps stay strings,
	// integers int64), which is how the YAML was read before.
	objs, err := manifest.Decode("crd.yaml", doc)
	if err != nil {
		return nil, err
	}
	if len(objs) != 1 {
		return nil, fmt.Errorf("%d objects in one document", len(objs))
	}
	crd := objs[0].Body
	spec, _ := crd["spec"].(map[string]any)
	versions, _ := spec["versions"].([]any)
	for _, v := range versions {
		v, _ := v.(map[string]any)
		schema, _ := v["schema"].(map[string]any)
		if s, ok := schema["openAPIV3Schema"].(map[string]any); ok {
			dropDescriptions(s)
		}
	}
	if spec["versions"] == nil {
		return nil, fmt.Errorf("no versions")
	}
	out, err := json.Marshal(crd)
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// dropDescriptions removes "description" from a JSON schema (a
// JSONSchemaProps) and the schemas inside it; a property named
// description stays.
func dropDescriptions(s map[string]any) {
	delete(s, "description")
	for _, key := range []string{"properties", "patternProperties", "definitions"} {
		if m, ok := s[key].(map[string]any); ok {
			for _, sub := range m {
				if sub, ok := sub.(map[string]any); ok {
					dropDescriptions(sub)
				}
			}
		}
	}
	for _, key := range []string{"items", "additionalProperties", "additionalItems", "not"} {
		switch sub := s[key].(type) {
		case map[string]any:
			dropDescriptions(sub)
		case []any:
			schemas(sub)
		}
	}
	for _, key := range []string{"allOf", "anyOf", "oneOf"} {
		if l, ok := s[key].([]any); ok {
			schemas(l)
		}
	}
	if deps, ok := s["dependencies"].(map[string]any); ok {
		for _, d := range deps {
			if d, ok := d.(map[string]any); ok {
				dropDescriptions(d)
			}
		}
	}
}

func schemas(l []any) {
	for _, sub := range l {
		if sub, ok := sub.(map[string]any); ok {
			dropDescriptions(sub)
		}
	}
}
