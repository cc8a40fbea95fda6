package argocd

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
)

// Carried is one Application's render in a form that can leave the
// process (a review's shard file, routeguard report merge) and come back
// as the same AppResult: its objects (every value with its Go type, so
// that a reused object compares equal to a rendered one), their field
// lines, its sources, error, unrendered scopes, routing files and the
// notices its render raised. The checkout's root in any text is written
// as RootToken and put back under the root of the process that reads it.
type Carried struct {
	Key          string                     `json:"key"`
	Status       string                     `json:"status"`
	Reused       bool                       `json:"reused,omitempty"`
	Parent       bool                       `json:"rendersApplications,omitempty"`
	Objects      []CarriedObject            `json:"objects,omitempty"`
	Failed       bool                       `json:"failed,omitempty"` // Set nil
	Err          string                     `json:"error,omitempty"`
	HasErr       bool                       `json:"hasError,omitempty"`
	Sources      []SourceResult             `json:"sources,omitempty"`
	Unrendered   []analysis.UnrenderedScope `json:"unrendered,omitempty"`
	RoutingFiles []string                   `json:"routingFiles,omitempty"`
	Notes        []notice.Notice            `json:"notes,omitempty"`
}

// CarriedObject is one rendered object.
type CarriedObject struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Namespace  string          `json:"namespace,omitempty"`
	Name       string          `json:"name"`
	Source     manifest.Source `json:"source"`
	Body       any             `json:"body"` // TypedValue of the body
	Fields     *CarriedFields  `json:"fields,omitempty"`
}

// CarriedFields is a manifest.FieldIndex.
type CarriedFields struct {
	Base    uint64   `json:"base"`
	Entries []uint64 `json:"entries"`
}

// RootToken stands for the checkout's root in carried text.
const RootToken = "\x00root\x00"

// Carry makes the carried form of a, whose render read the checkout at
// root.
func Carry(a *AppResult, root string) (Carried, error) {
	c := Carried{Key: a.App.Key(), Status: a.Status(), Reused: a.Reused, Failed: a.Set == nil,
		Sources: a.Sources, RoutingFiles: a.RoutingFiles}
	sub := func(s string) string { return strings.ReplaceAll(s, root, RootToken) }
	if a.Err != nil {
		c.HasErr, c.Err = true, sub(a.Err.Error())
	}
	for _, u := range a.Unrendered {
		u.Reason = sub(u.Reason)
		c.Unrendered = append(c.Unrendered, u)
	}
	for _, n := range a.notes {
		c.Notes = append(c.Notes, notice.Notice{Level: n.Level, Text: sub(n.Text)})
	}
	if a.Set != nil {
		for _, o := range a.Set.Objects() {
			if o.Kind == "Application" || o.Kind == "ApplicationSet" {
				c.Parent = true
			}
			body, err := TypedValue(o.Body)
			if err != nil {
				return c, fmt.Errorf("Application %s: %s %s: %w", c.Key, o.Kind, o.Name, err)
			}
			co := CarriedObject{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name, Source: o.Source, Body: body}
			co.Source.File = sub(co.Source.File)
			if b, e, ok := o.Fields.Export(); ok {
				co.Fields = &CarriedFields{Base: b, Entries: e}
			}
			c.Objects = append(c.Objects, co)
		}
	}
	return c, nil
}

// Result is the AppResult c carries for app, at the checkout root.
func (c Carried) Result(app *Application, root string) (*AppResult, error) {
	put := func(s string) string { return strings.ReplaceAll(s, RootToken, root) }
	r := &AppResult{App: app, Sources: c.Sources, RoutingFiles: c.RoutingFiles, Reused: c.Reused}
	if c.HasErr {
		r.Err = errors.New(put(c.Err))
	}
	for _, u := range c.Unrendered {
		u.Reason = put(u.Reason)
		r.Unrendered = append(r.Unrendered, u)
	}
	for _, n := range c.Notes {
		r.notes = append(r.notes, notice.Notice{Level: n.Level, Text: put(n.Text)})
	}
	if c.Failed {
		return r, nil
	}
	r.Set = manifest.NewSet()
	for i, co := range c.Objects {
		v, err := UntypedValue(co.Body)
		if err != nil {
			return nil, fmt.Errorf("Application %s, object %d: %w", c.Key, i+1, err)
		}
		body, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("Application %s, object %d: the body is not a map", c.Key, i+1)
		}
		if co.Kind == "" || co.Name == "" || co.APIVersion == "" {
			return nil, fmt.Errorf("Application %s, object %d: no apiVersion, kind or name", c.Key, i+1)
		}
		o := &manifest.Object{APIVersion: co.APIVersion, Kind: co.Kind, Namespace: co.Namespace, Name: co.Name, Body: body, Source: co.Source}
		o.Source.File = put(o.Source.File)
		if co.Fields != nil {
			o.Fields = manifest.ImportFieldIndex(co.Fields.Base, co.Fields.Entries)
		}
		if err := r.Set.Add(o); err != nil {
			return nil, fmt.Errorf("Application %s: %w", c.Key, err)
		}
	}
	if st := r.Status(); st != c.Status {
		return nil, fmt.Errorf("Application %s: status %s, but its parts say %s", c.Key, c.Status, st)
	}
	return r, nil
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
