package manifest

import (
	"bytes"
	"errors"
	"io"

	yaml "go.yaml.in/yaml/v3"
)

// NotManifest reports whether data, a YAML or JSON file that failed to
// decode as manifests, is some other kind of YAML file: every document
// that is not empty is a mapping with neither apiVersion nor kind (or an
// apiVersion that is a number, as Grafana's provisioning files have, and
// no kind), or not a mapping at all (a list, a scalar). A repository's root holds many such
// files (.pre-commit-config.yaml, .github/workflows, Helm values,
// Renovate and lint configuration) that no reconciler applies.
//
// It is false when the file is malformed YAML (that stays the decode
// error), when any document has an apiVersion or a kind (a manifest with
// a missing field is an error the user must see, not a file to pass
// over), and for a file with no document at all. Called only after a
// failed decode; it reads the file again as nodes, bounded as decoding is
// (checkNodes ran before the decode failed).
func NotManifest(data []byte) bool {
	if err := checkNodes("", data); err != nil {
		return false
	}
	dec := yaml.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	seen := false
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return seen
		}
		if err != nil {
			return false
		}
		doc := &n
		if doc.Kind == yaml.DocumentNode {
			if len(doc.Content) == 0 {
				continue
			}
			doc = doc.Content[0]
		}
		if doc.Kind == yaml.ScalarNode && doc.Tag == "!!null" {
			continue // an empty document
		}
		seen = true
		if doc.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(doc.Content); i += 2 {
			switch doc.Content[i].Value {
			case "kind":
				return false
			case "apiVersion":
				// Grafana's provisioning files and others say
				// apiVersion: 1; Kubernetes' is group/version text.
				if v := doc.Content[i+1]; v.Kind != yaml.ScalarNode || v.Tag != "!!int" {
					return false
				}
			}
		}
	}
}
