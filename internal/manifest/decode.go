package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// DefaultMaxFileBytes is the largest file routeguard decodes (64 MiB). A
// GitOps repository has no business holding larger manifests; a larger file
// is almost always a mistake (a binary, a dump) and would cost gigabytes.
const DefaultMaxFileBytes = 64 << 20

// maxAliasNodes bounds the nodes that alias expansion may produce in one
// file, which defeats "billion laughs" documents while leaving room for the
// anchors real manifests use.
const maxAliasNodes = 1_000_000

// Decode decodes a multi-document YAML or JSON stream into objects. file is
// the name used in sources and errors. Empty and comments-only documents are
// skipped; List kinds are expanded into their items.
func Decode(file string, data []byte) ([]*Object, error) {
	return decode(file, data, nil)
}

// DuplicateKey is a key defined twice in one mapping, which
// DecodeLastKeyWins kept with its last value.
type DuplicateKey struct {
	File string
	Line int // of the second definition
	Key  string
}

func (d DuplicateKey) String() string {
	return fmt.Sprintf("%s:%d: key %q is defined twice in the same mapping; the last value is used (remove one)", d.File, d.Line, d.Key)
}

// DecodeLastKeyWins decodes as Decode does, except that a key defined twice
// in one mapping keeps its last value instead of failing, as
// sigs.k8s.io/yaml (and so Argo CD's directory sources and kubectl) decode
// it; each such key is passed to dup.
func DecodeLastKeyWins(file string, data []byte, dup func(DuplicateKey)) ([]*Object, error) {
	if dup == nil {
		dup = func(DuplicateKey) {}
	}
	return decode(file, data, dup)
}

// DecodeOptions select how DecodeWith reads what a reconciler's own decoder
// would read differently from plain YAML 1.2.
type DecodeOptions struct {
	// DuplicateKey: see DecodeLastKeyWins; nil makes a duplicate key an
	// error.
	DuplicateKey func(DuplicateKey)
	// YAML11Booleans resolves the plain (unquoted) scalars y, yes, on, n,
	// no, off in their capitalizations to booleans, as sigs.k8s.io/yaml
	// does (it keeps YAML 1.1's table): what kubectl, Argo CD (directory
	// apps and rendered charts) and Helm's install decode. Kustomize and so
	// Flux's kustomize-controller read them as strings (YAML 1.2) and
	// quote them in their output.
	YAML11Booleans bool
}

// DecodeWith decodes as Decode does, with opts.
func DecodeWith(file string, data []byte, opts DecodeOptions) ([]*Object, error) {
	return decodeOpts(file, data, opts)
}

func decode(file string, data []byte, dup func(DuplicateKey)) ([]*Object, error) {
	return decodeOpts(file, data, DecodeOptions{DuplicateKey: dup})
}

func decodeOpts(file string, data []byte, opts DecodeOptions) ([]*Object, error) {
	dup := opts.DuplicateKey
	if !utf8.Valid(data) {
		return nil, &Error{File: file, Line: invalidUTF8Line(data),
			Msg: "file is not valid UTF-8 text; save it as UTF-8 (Kubernetes manifests must be UTF-8)"}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if IsLFSPointer(data) {
		return nil, LFSPointerError(file)
	}
	if err := checkNodes(file, data); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []*Object
	c := converter{file: file, dup: dup, yaml11: opts.YAML11Booleans}
	for doc := 0; ; doc++ {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, yamlError(file, err)
		}
		root := documentRoot(&n)
		if root == nil {
			continue // empty or comments-only document
		}
		if root.Kind != yaml.MappingNode {
			return nil, &Error{File: file, Line: root.Line, Msg: fmt.Sprintf(
				"document %d is %s, not an object; each YAML document must be one Kubernetes object",
				doc+1, describeNode(root))}
		}
		c.aliasNodes = 0 // the alias budget is per document
		objs, err := c.objects(root, doc)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
}

// documentRoot returns the content of a document node, or nil when the
// document is empty (no content, or a bare null).
func documentRoot(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		n = n.Content[0]
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil
	}
	return n
}

func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("a scalar (%q)", truncate(n.Value, 40))
	case yaml.AliasNode:
		return "an alias"
	}
	return "not a mapping"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func yamlError(file string, err error) error {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		if strings.HasPrefix(m[2], "did not find expected") {
			// yaml.v3 reports parser errors with a 0-based line (scanner
			// errors are 1-based); shift so editors land on the right line.
			line++
		}
		return &Error{File: file, Line: line, Msg: "malformed YAML: " + m[2]}
	}
	return &Error{File: file, Msg: "malformed YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

func invalidUTF8Line(data []byte) int {
	line := 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return line
		}
		if r == '\n' {
			line++
		}
		i += size
	}
	return line
}

// converter turns yaml nodes into JSON-compatible values, recording the
// line of every node under the hash of its path (see FieldIndex).
type converter struct {
	file       string
	dup        func(DuplicateKey) // nil: a duplicate key is an error
	yaml11     bool               // YAML 1.1 booleans (DecodeOptions.YAML11Booleans)
	aliasNodes int                // nodes produced through alias expansion so far
	inAlias    int                // depth of alias expansion in progress
	path       uint64
	lines      []uint64 // scratch, reused across documents
}

func (c *converter) record(h uint64, line int) {
	if line > 0 && line <= maxLine {
		c.lines = append(c.lines, fieldLine(h, line))
	}
}

func (c *converter) objects(root *yaml.Node, doc int) ([]*Object, error) {
	c.path, c.lines = 0, c.lines[:0]
	v, err := c.value(root)
	if err != nil {
		return nil, err
	}
	fields := &FieldIndex{entries: slices.Clone(c.lines)}
	body := v.(map[string]any)
	src := Source{File: c.file, Line: root.Line, Doc: doc}
	kind, _ := body["kind"].(string)
	if items, ok := body["items"].([]any); ok && isListKind(kind) {
		itemNodes := mappingValue(root, "items")
		out := make([]*Object, 0, len(items))
		for i, it := range items {
			line := src.Line
			if itemNodes != nil && i < len(itemNodes.Content) {
				line = itemNodes.Content[i].Line
			}
			m, ok := it.(map[string]any)
			if !ok {
				return nil, &Error{File: c.file, Line: line, Msg: fmt.Sprintf(
					"item %d of %s is not an object", i, kind)}
			}
			if msg := nestedList(kind, i, m); msg != "" {
				return nil, &Error{File: c.file, Line: line, Msg: msg}
			}
			var itemNode *yaml.Node
			if itemNodes != nil && i < len(itemNodes.Content) {
				itemNode = itemNodes.Content[i]
			}
			if err := c.checkShape(itemNode, m, line); err != nil {
				return nil, err
			}
			o, err := FromBody(m, Source{File: c.file, Line: line, Doc: doc})
			if err != nil {
				return nil, err
			}
			o.Fields = fields.sub(i)
			out = append(out, o)
		}
		return out, nil
	}
	if err := c.checkShape(root, body, src.Line); err != nil {
		return nil, err
	}
	o, err := FromBody(body, src)
	if err != nil {
		return nil, err
	}
	o.Fields = fields
	return []*Object{o}, nil
}

// checkShape reports a wrong identifying field (shape) at the line of
// that field in n (at line when n does not hold it).
func (c *converter) checkShape(n *yaml.Node, body map[string]any, line int) error {
	field, msg := shape(body)
	if msg == "" {
		return nil
	}
	for _, k := range field {
		if n == nil || n.Kind != yaml.MappingNode {
			break
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				line, n = n.Content[i].Line, n.Content[i+1]
				break
			}
		}
	}
	return &Error{File: c.file, Line: line, Msg: msg}
}

// isListKind reports whether kind is v1 List or a typed list (FooList).
func isListKind(kind string) bool {
	return kind == "List" || (strings.HasSuffix(kind, "List") && len(kind) > len("List"))
}

func mappingValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func (c *converter) count() error {
	if c.inAlias > 0 {
		c.aliasNodes++
		if c.aliasNodes > maxAliasNodes {
			return &Error{File: c.file, Msg: fmt.Sprintf(
				"YAML aliases expand to more than %d nodes (an alias bomb?); remove the nested anchors", maxAliasNodes)}
		}
	}
	return nil
}

func (c *converter) value(n *yaml.Node) (any, error) {
	if err := c.count(); err != nil {
		return nil, err
	}
	switch n.Kind {
	case yaml.MappingNode:
		return c.mapping(n)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		parent := c.path
		for i, it := range n.Content {
			c.path = indexHash(parent, i)
			c.record(c.path, it.Line)
			v, err := c.value(it)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		c.path = parent
		return out, nil
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, &Error{File: c.file, Line: n.Line, Msg: "unknown YAML alias"}
		}
		c.inAlias++
		v, err := c.value(n.Alias)
		c.inAlias--
		return v, err
	case yaml.ScalarNode:
		return c.scalar(n)
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0])
	}
	return nil, &Error{File: c.file, Line: n.Line, Msg: "unsupported YAML node"}
}

func (c *converter) mapping(n *yaml.Node) (map[string]any, error) {
	out := make(map[string]any, len(n.Content)/2)
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			return nil, &Error{File: c.file, Line: k.Line, Msg: "mapping keys must be scalars"}
		}
		if _, dup := out[k.Value]; dup {
			if c.dup == nil {
				return nil, &Error{File: c.file, Line: k.Line, Msg: fmt.Sprintf(
					"key %q is defined twice in the same mapping; remove one", k.Value)}
			}
			c.dup(DuplicateKey{File: c.file, Line: k.Line, Key: k.Value})
		}
		parent := c.path
		c.path = keyHash(parent, k.Value)
		c.record(c.path, k.Line)
		val, err := c.value(v)
		c.path = parent
		if err != nil {
			return nil, err
		}
		out[k.Value] = val
	}
	// Merge keys (<<: *anchor) fill in keys the mapping does not set itself.
	for _, m := range merges {
		srcs := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			srcs = m.Content
		}
		for _, s := range srcs {
			v, err := c.value(s)
			if err != nil {
				return nil, err
			}
			mm, ok := v.(map[string]any)
			if !ok {
				return nil, &Error{File: c.file, Line: s.Line, Msg: "merge key (<<) must refer to a mapping"}
			}
			for k, val := range mm {
				if _, set := out[k]; !set {
					out[k] = val
				}
			}
		}
	}
	return out, nil
}

func (c *converter) scalar(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!str":
		if c.yaml11 && n.Style == 0 {
			if b, ok := yaml11Booleans[n.Value]; ok {
				return b, nil
			}
		}
		return n.Value, nil
	case "!!timestamp", "!!binary":
		// Kubernetes decodes YAML through JSON: timestamps and binary stay strings.
		return n.Value, nil
	case "!!null":
		return nil, nil
	case "!!bool":
		switch n.Value {
		case "true", "True", "TRUE":
			return true, nil
		case "false", "False", "FALSE":
			return false, nil
		}
	case "!!int":
		s := strings.ReplaceAll(n.Value, "_", "")
		if i, err := strconv.ParseInt(s, 0, 64); err == nil {
			return i, nil
		}
		if u, err := strconv.ParseUint(s, 0, 64); err == nil {
			return float64(u), nil
		}
	case "!!float":
		switch strings.ToLower(n.Value) {
		case ".inf", "+.inf":
			return math.Inf(1), nil
		case "-.inf":
			return math.Inf(-1), nil
		case ".nan":
			return math.NaN(), nil
		}
		if f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64); err == nil {
			return f, nil
		}
	}
	// Anything unusual: let the YAML library resolve it the standard way.
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, &Error{File: c.file, Line: n.Line, Msg: "cannot decode value", Err: err}
	}
	return v, nil
}

// yaml11Booleans are the plain scalars YAML 1.1 (and so sigs.k8s.io/yaml)
// reads as booleans that YAML 1.2 reads as strings (true/false and their
// capitalizations are booleans in both).
var yaml11Booleans = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true, "on": true, "On": true, "ON": true,
	"n": false, "N": false, "no": false, "No": false, "NO": false, "off": false, "Off": false, "OFF": false,
}
