package manifest

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Carried objects are rendered objects in a form that can leave the
// process (a review's shard file, routeguard report merge) and come back
// equal: every value keeps its Go type (TypedValue), and the field lines
// stay. The checkout's root in any path is written as RootToken and put
// back under the root of the process that reads it. Argo CD's and Flux's
// shards both carry their renders this way.

// RootToken stands for the checkout's root in carried text.
const RootToken = "\x00root\x00"

// CarriedObject is one rendered object.
type CarriedObject struct {
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Namespace  string         `json:"namespace,omitempty"`
	Name       string         `json:"name"`
	Source     Source         `json:"source"`
	Body       any            `json:"body"` // TypedValue of the body
	Fields     *CarriedFields `json:"fields,omitempty"`
}

// CarriedFields is a FieldIndex.
type CarriedFields struct {
	Base    uint64   `json:"base"`
	Entries []uint64 `json:"entries"`
}

// Tokenize writes root in s as RootToken.
func Tokenize(s, root string) string {
	if root == "" {
		return s
	}
	return strings.ReplaceAll(s, root, RootToken)
}

// Untokenize puts root back for RootToken in s.
func Untokenize(s, root string) string { return strings.ReplaceAll(s, RootToken, root) }

// Carry is the carried form of o, rendered from the checkout at root.
func Carry(o *Object, root string) (CarriedObject, error) {
	body, err := TypedValue(o.Body)
	if err != nil {
		return CarriedObject{}, fmt.Errorf("%s %s: %w", o.Kind, o.Name, err)
	}
	co := CarriedObject{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name, Source: o.Source, Body: body}
	co.Source.File = Tokenize(co.Source.File, root)
	if b, e, ok := o.Fields.Export(); ok {
		co.Fields = &CarriedFields{Base: b, Entries: e}
	}
	return co, nil
}

// Object is the object co carries, under the checkout root.
func (co CarriedObject) Object(root string) (*Object, error) {
	v, err := UntypedValue(co.Body)
	if err != nil {
		return nil, err
	}
	body, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("the body is not a map")
	}
	if co.Kind == "" || co.Name == "" || co.APIVersion == "" {
		return nil, errors.New("no apiVersion, kind or name")
	}
	o := &Object{APIVersion: co.APIVersion, Kind: co.Kind, Namespace: co.Namespace, Name: co.Name, Body: body, Source: co.Source}
	o.Source.File = Untokenize(o.Source.File, root)
	if co.Fields != nil {
		o.Fields = ImportFieldIndex(co.Fields.Base, co.Fields.Entries)
	}
	return o, nil
}

// TypedValue is v (a decoded YAML or JSON value) with the Go type of
// every scalar kept: a one-key map {"s": "text"}, {"i": "5"} (int64),
// {"n": "5"} (int), {"f": "0x1.8p+01"} (float64, exact), {"b": true},
// {"z": true} (nil), {"a": [...]}, {"m": [[key, value]...]} (keys
// sorted). encoding/json alone would turn every number into a float64.
func TypedValue(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return map[string]any{"z": true}, nil
	case string:
		return map[string]any{"s": x}, nil
	case bool:
		return map[string]any{"b": x}, nil
	case int64:
		return map[string]any{"i": strconv.FormatInt(x, 10)}, nil
	case int:
		return map[string]any{"n": strconv.Itoa(x)}, nil
	case float64:
		return map[string]any{"f": strconv.FormatFloat(x, 'x', -1, 64)}, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			t, err := TypedValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = t
		}
		return map[string]any{"a": out}, nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make([]any, 0, len(x))
		for _, k := range keys {
			t, err := TypedValue(x[k])
			if err != nil {
				return nil, err
			}
			out = append(out, []any{k, t})
		}
		return map[string]any{"m": out}, nil
	}
	return nil, fmt.Errorf("a value of type %T cannot be carried", v)
}

// maxDepth bounds the nesting UntypedValue follows (a file is untrusted).
const maxDepth = 200

// UntypedValue is the value TypedValue gave t for (t as encoding/json
// decodes it).
func UntypedValue(t any) (any, error) { return untyped(t, 0) }

func untyped(t any, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("values nested too deep")
	}
	m, ok := t.(map[string]any)
	if !ok || len(m) != 1 {
		return nil, fmt.Errorf("not a typed value: %.80v", t)
	}
	for tag, v := range m {
		bad := fmt.Errorf("typed value %q: not a %s", tag, map[string]string{"s": "string", "i": "int64", "n": "int", "f": "float", "b": "bool", "z": "null", "a": "list", "m": "map"}[tag])
		switch tag {
		case "z":
			return nil, nil
		case "s":
			s, ok := v.(string)
			if !ok {
				return nil, bad
			}
			return s, nil
		case "b":
			b, ok := v.(bool)
			if !ok {
				return nil, bad
			}
			return b, nil
		case "i", "n", "f":
			s, ok := v.(string)
			if !ok {
				return nil, bad
			}
			switch tag {
			case "i":
				i, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					return nil, bad
				}
				return i, nil
			case "n":
				i, err := strconv.ParseInt(s, 10, 0)
				if err != nil {
					return nil, bad
				}
				return int(i), nil
			}
			f, err := strconv.ParseFloat(s, 64)
			if err != nil && !math.IsInf(f, 0) {
				return nil, bad
			}
			return f, nil
		case "a":
			l, ok := v.([]any)
			if !ok {
				return nil, bad
			}
			out := make([]any, len(l))
			for i, e := range l {
				u, err := untyped(e, depth+1)
				if err != nil {
					return nil, err
				}
				out[i] = u
			}
			return out, nil
		case "m":
			l, ok := v.([]any)
			if !ok {
				return nil, bad
			}
			out := make(map[string]any, len(l))
			for _, e := range l {
				kv, ok := e.([]any)
				if !ok || len(kv) != 2 {
					return nil, bad
				}
				k, ok := kv[0].(string)
				if !ok {
					return nil, bad
				}
				if _, dup := out[k]; dup {
					return nil, fmt.Errorf("typed map: key %q twice", k)
				}
				u, err := untyped(kv[1], depth+1)
				if err != nil {
					return nil, err
				}
				out[k] = u
			}
			return out, nil
		}
		return nil, fmt.Errorf("unknown typed value tag %q", tag)
	}
	return nil, nil
}
