package notifications

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	yaml3 "go.yaml.in/yaml/v3"
)

// marshalLiteral writes v as YAML with map keys sorted and every multi-line
// string as a literal block, so templates stay readable in the bundle.
func marshalLiteral(v any) ([]byte, error) {
	n, err := toNode(v)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := yaml3.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, fmt.Errorf("encode yaml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode yaml: %w", err)
	}
	return buf.Bytes(), nil
}

func toNode(v any) (*yaml3.Node, error) {
	switch x := v.(type) {
	case map[string]any:
		n := &yaml3.Node{Kind: yaml3.MappingNode}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			child, err := toNode(x[k])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			n.Content = append(n.Content, &yaml3.Node{Kind: yaml3.ScalarNode, Tag: "!!str", Value: k}, child)
		}
		return n, nil
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, s := range x {
			m[k] = s
		}
		return toNode(m)
	case string:
		n := &yaml3.Node{Kind: yaml3.ScalarNode, Tag: "!!str", Value: x}
		if strings.Contains(x, "\n") {
			n.Style = yaml3.LiteralStyle
		}
		return n, nil
	case bool:
		return &yaml3.Node{Kind: yaml3.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(x)}, nil
	default:
		return nil, fmt.Errorf("unsupported value of type %T", v)
	}
}
