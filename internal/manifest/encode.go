package manifest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// WriteYAML writes objects as a YAML stream, each document introduced by
// "---", keys sorted: the same objects always give the same bytes.
func WriteYAML(w io.Writer, objs []*Object) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	y := &yamlWriter{w: bw}
	for _, o := range objs {
		bw.WriteString("---\n")
		if err := y.mapping(o.Body, 0, false); err != nil {
			return fmt.Errorf("%s: encoding %s: %w", o.Source, o, err)
		}
	}
	return bw.Flush()
}

// WriteJSON writes objects as one v1 List, indented, keys sorted.
func WriteJSON(w io.Writer, objs []*Object) error {
	items := make([]map[string]any, len(objs))
	for i, o := range objs {
		items[i] = o.Body
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(list)
}
