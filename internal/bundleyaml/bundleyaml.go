// Package bundleyaml writes the YAML documents routeguard bundles for people to
// read and commit (health checks, notification settings): keys of maps
// sorted, multi-line strings as literal blocks, two-space indentation, and
// an optional comment header. Manifests are written by internal/manifest.
package bundleyaml

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Marshal writes v as one YAML document after the header lines (each
// written as a "# " comment). v is a *yaml.Node (written as built, for
// documents whose key order matters), or a value of maps (keys sorted),
// slices, strings and booleans.
func Marshal(v any, header ...string) ([]byte, error) {
	n, err := Node(v)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for _, h := range header {
		fmt.Fprintf(&b, "# %s\n", h)
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, fmt.Errorf("encode yaml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode yaml: %w", err)
	}
	return b.Bytes(), nil
}

// Node converts v to a YAML node (see Marshal).
func Node(v any) (*yaml.Node, error) {
	switch x := v.(type) {
	case *yaml.Node:
		return x, nil
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			child, err := Node(x[k])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			n.Content = append(n.Content, Scalar(k), child)
		}
		return n, nil
	case map[string]string:
		n := &yaml.Node{Kind: yaml.MappingNode}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			n.Content = append(n.Content, Scalar(k), Block(x[k]))
		}
		return n, nil
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		for i, it := range x {
			child, err := Node(it)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			n.Content = append(n.Content, child)
		}
		return n, nil
	case string:
		return Block(x), nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(x)}, nil
	}
	return nil, fmt.Errorf("unsupported value of type %T", v)
}

// Mapping builds a mapping node from key, node pairs, in the order given.
func Mapping(kv ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Content = append(n.Content, Scalar(kv[i].(string)), kv[i+1].(*yaml.Node))
	}
	return n
}

// Sequence builds a sequence node.
func Sequence(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Content: items}
}

// Scalar is a string scalar.
func Scalar(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// Block is a string scalar written as a literal block when it spans lines,
// the readable form for scripts and templates.
func Block(s string) *yaml.Node {
	n := Scalar(s)
	if strings.Contains(s, "\n") {
		n.Style = yaml.LiteralStyle
	}
	return n
}
