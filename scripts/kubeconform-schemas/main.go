// Command kubeconform-schemas writes the JSON schemas kubeconform validates
// against, offline, in the layout its -schema-location template expects
// ({{ .ResourceKind }}{{ .KindSuffix }}.json): the built-in kinds from
// Kubernetes' own OpenAPI document (api/openapi-spec/swagger.json in the
// k8s.io/kubernetes module of go.mod) and the CRDs routeguard bundles
// (Gateway API, Istio), converted the way kubeconform's
// openapi2jsonschema.py converts them: strict (additionalProperties: false
// where properties are listed, unless x-kubernetes-preserve-unknown-fields;
// a CRD's root stays open), int-or-string as a oneOf. scripts/bench-analyze.sh uses it to run
// kubeconform on the same objects as routeguard without the network.
//
//	go run ./scripts/kubeconform-schemas -out DIR
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/crds"
)

func main() {
	out := flag.String("out", "", "directory to write the schemas into")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "kubeconform-schemas: -out DIR is required")
		os.Exit(2)
	}
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "kubeconform-schemas:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	n, err := builtins(out)
	if err != nil {
		return err
	}
	m, err := bundledCRDs(out)
	if err != nil {
		return err
	}
	fmt.Printf("kubeconform-schemas: %d built-in and %d CRD schemas in %s\n", n, m, out)
	return nil
}

// fileName is kubeconform's schema file name for a kind and apiVersion
// (pkg/registry schemaPath: the group's first label, then the version).
func fileName(kind, group, version string) string {
	suffix := "-" + strings.ToLower(version)
	if group != "" {
		suffix = "-" + strings.ToLower(strings.Split(group, ".")[0]) + suffix
	}
	return strings.ToLower(kind) + suffix + ".json"
}

func builtins(out string) (int, error) {
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/kubernetes").Output()
	if err != nil {
		return 0, fmt.Errorf("finding k8s.io/kubernetes in the module cache (go mod download k8s.io/kubernetes): %w", err)
	}
	data, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(dir)), "api", "openapi-spec", "swagger.json"))
	if err != nil {
		return 0, err
	}
	var doc struct {
		Definitions map[string]map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return 0, err
	}
	n := 0
	for name, def := range doc.Definitions {
		gvks, _ := def["x-kubernetes-group-version-kind"].([]any)
		if len(gvks) != 1 {
			continue
		}
		gvk := gvks[0].(map[string]any)
		reach := map[string]bool{}
		refs(doc.Definitions, def, reach)
		defs := map[string]any{}
		for r := range reach {
			defs[r] = convert(doc.Definitions[r], false)
		}
		schema := convert(def, false).(map[string]any)
		schema["definitions"] = defs
		if err := write(out, fileName(gvk["kind"].(string), gvk["group"].(string), gvk["version"].(string)), schema); err != nil {
			return n, err
		}
		_ = name
		n++
	}
	return n, nil
}

// refs collects the definitions v refers to, transitively.
func refs(all map[string]map[string]any, v any, seen map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		if r, ok := x["$ref"].(string); ok {
			name := strings.TrimPrefix(r, "#/definitions/")
			if !seen[name] {
				seen[name] = true
				refs(all, all[name], seen)
			}
		}
		for _, e := range x {
			refs(all, e, seen)
		}
	case []any:
		for _, e := range x {
			refs(all, e, seen)
		}
	}
}

// convert applies openapi2jsonschema's changes: strict objects and
// int-or-string.
func convert(v any, preserve bool) any {
	switch x := v.(type) {
	case map[string]any:
		if x["format"] == "int-or-string" || x["x-kubernetes-int-or-string"] == true {
			return map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}
		}
		out := map[string]any{}
		keep := x["x-kubernetes-preserve-unknown-fields"] == true
		for k, e := range x {
			if k == "description" {
				continue
			}
			out[k] = convert(e, keep)
		}
		if _, ok := x["properties"]; ok && !keep {
			if _, set := x["additionalProperties"]; !set {
				out["additionalProperties"] = false
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = convert(e, preserve)
		}
		return out
	}
	return v
}

func bundledCRDs(out string) (int, error) {
	idx := crds.Bundled()
	n := 0
	for _, e := range idx.CRDs {
		// One channel: the experimental one is a superset of the standard.
		if e.Channel == crds.Standard {
			continue
		}
		data, err := crds.Read(e)
		if err != nil {
			return n, err
		}
		var crd struct {
			Spec struct {
				Group    string                `json:"group"`
				Names    struct{ Kind string } `json:"names"`
				Versions []struct {
					Name   string `json:"name"`
					Schema struct {
						OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
					} `json:"schema"`
				} `json:"versions"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(data, &crd); err != nil {
			return n, fmt.Errorf("%s: %w", e.File, err)
		}
		for _, v := range crd.Spec.Versions {
			schema := convert(v.Schema.OpenAPIV3Schema, false).(map[string]any)
			// As openapi2jsonschema.py: the root stays open (CRD schemas
			// often leave apiVersion, kind and metadata out).
			delete(schema, "additionalProperties")
			if err := write(out, fileName(crd.Spec.Names.Kind, crd.Spec.Group, v.Name), schema); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

func write(dir, name string, schema map[string]any) error {
	data, err := json.Marshal(schema)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name), data, 0o644)
}
