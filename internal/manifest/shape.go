package manifest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/routeguard/routeguard/internal/printable"
)

// An object whose identifying fields are there but wrong deserves more
// than "has no apiVersion": the field is a number, the key carries a byte
// order mark, the List holds a List. shapeProblem says which, in words a
// user can act on; "" when the fields are absent or right.

// bom is the byte order mark U+FEFF. Only the start of a file may carry
// one (it is dropped there); before a later document, YAML reads it as
// part of the first key ("\ufeffapiVersion").
const bom = "\ufeff"

func shapeProblem(body map[string]any) string {
	_, msg := shape(body)
	return msg
}

// shape returns the problem and the path of the field it is about (for
// its line), or "" and nil.
func shape(body map[string]any) (field []string, msg string) {
	for k := range body {
		if strings.HasPrefix(k, bom) {
			return []string{k}, fmt.Sprintf("the document starts with a byte order mark (U+FEFF) before %q; only the start of a file may have one: "+
				"remove it (save the file as UTF-8 without BOM, or delete the invisible character after ---)",
				printable.Line(printable.Cut(strings.TrimPrefix(k, bom), 40)))
		}
	}
	for _, f := range []string{"apiVersion", "kind"} {
		if v, ok := body[f]; ok && v != nil {
			if _, isString := v.(string); !isString {
				return []string{f}, fmt.Sprintf("%s is %s, not a string; write it as text (for example apiVersion: v1, kind: ConfigMap), quoted if it looks like a number",
					f, describeValue(v))
			}
		}
	}
	md, ok := body["metadata"]
	if !ok || md == nil {
		return nil, ""
	}
	m, isMap := md.(map[string]any)
	if !isMap {
		return []string{"metadata"}, fmt.Sprintf("metadata is %s, not a mapping; it holds name, namespace, labels and annotations", describeValue(md))
	}
	for _, f := range []string{"name", "generateName", "namespace"} {
		if v, ok := m[f]; ok && v != nil {
			if _, isString := v.(string); !isString {
				return []string{"metadata", f}, fmt.Sprintf("metadata.%s is %s, not a string; quote it (%s: \"%s\")", f, describeValue(v), f, scalarText(v))
			}
		}
	}
	return nil, ""
}

// nestedList says that item i of a List is a List itself.
func nestedList(outer string, i int, item map[string]any) string {
	kind, _ := item["kind"].(string)
	if _, hasItems := item["items"].([]any); !hasItems || !isListKind(kind) {
		return ""
	}
	return fmt.Sprintf("item %d of %s is itself a %s; a List inside a List is not unpacked (kubectl and Argo CD send it to the API server as one object of kind %s): "+
		"move its items into the outer %s", i, outer, printable.Line(printable.Cut(kind, 60)), printable.Line(printable.Cut(kind, 60)), outer)
}

func describeValue(v any) string {
	switch t := v.(type) {
	case bool:
		return "the boolean " + strconv.FormatBool(t)
	case int64, float64, int:
		return "the number " + scalarText(t)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return fmt.Sprintf("a %T", v)
}

func scalarText(v any) string {
	switch t := v.(type) {
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	case int64:
		return strconv.FormatInt(t, 10)
	}
	return fmt.Sprint(v)
}
