package pluginhost

import (
	"encoding/json"
	"fmt"
)

// jsonConfig encodes a plugin's config from .routeguard.yaml. YAML allows
// map keys JSON does not (numbers, booleans); they become strings.
func jsonConfig(cfg map[string]any) (json.RawMessage, error) {
	data, err := json.Marshal(normalize(cfg))
	if err != nil {
		return nil, fmt.Errorf("encoding plugin config: %w", err)
	}
	return data, nil
}

func normalize(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = normalize(x)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[fmt.Sprint(k)] = normalize(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = normalize(x)
		}
		return out
	}
	return v
}
