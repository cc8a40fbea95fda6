package action

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// parseVars merges --vars-file files in order, then --var (postrender and
// flux build).
func parseVars(varsFiles, varFlags []string) (map[string]string, error) {
	vars := map[string]string{}
	for _, p := range varsFiles {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("--vars-file %w", err)
		}
		var m map[string]any
		if err := yaml.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("--vars-file %s: want a YAML map of name: value: %w", p, err)
		}
		// A ConfigMap's file works as is: take its data.
		if d, ok := m["data"].(map[string]any); ok && m["kind"] == "ConfigMap" {
			m = d
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			switch v := m[k].(type) {
			case string:
				vars[k] = v
			case nil:
				vars[k] = ""
			case map[string]any, []any:
				return nil, fmt.Errorf("--vars-file %s: variable %s must be a string, number or bool", p, k)
			default:
				vars[k] = fmt.Sprint(v)
			}
		}
	}
	for _, kv := range varFlags {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--var %q: want name=value", kv)
		}
		vars[k] = v
	}
	return vars, nil
}
