package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	yaml "go.yaml.in/yaml/v3"
)

// CheckAliases refuses YAML whose aliases would expand to more than the
// decoder's limit of nodes (an alias bomb), without expanding them: for
// files that other libraries decode (Kustomize reads resources itself),
// where Decode's own limit does not apply. YAML that does not parse is left
// to the library to report.
func CheckAliases(file string, data []byte) error {
	if !bytes.Contains(data, []byte("*")) {
		return nil // no alias can occur without '*'
	}
	if err := checkNodes(file, data); err != nil {
		return err // decoding it to look for aliases would cost gigabytes
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	sizes := map[*yaml.Node]int{}
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return nil
		}
		if n := expandedSize(&doc, sizes, 0); n > maxAliasNodes {
			return &Error{File: file, Line: doc.Line, Msg: fmt.Sprintf(
				"YAML aliases expand to more than %d nodes (an alias bomb?); remove the nested anchors", maxAliasNodes)}
		}
	}
}

// expandedSize counts the nodes n stands for once its aliases are expanded,
// memoized per node so that counting is linear in the document.
func expandedSize(n *yaml.Node, sizes map[*yaml.Node]int, depth int) int {
	if n == nil {
		return 0
	}
	if s, ok := sizes[n]; ok {
		return s
	}
	if depth > 10000 {
		return maxAliasNodes + 1 // nesting this deep is itself an attack
	}
	sizes[n] = maxAliasNodes + 1 // an alias cycle counts as unbounded
	total := 1
	if n.Kind == yaml.AliasNode {
		total = expandedSize(n.Alias, sizes, depth+1)
	} else {
		for _, c := range n.Content {
			total += expandedSize(c, sizes, depth+1)
			if total > maxAliasNodes {
				break
			}
		}
	}
	sizes[n] = total
	return total
}
