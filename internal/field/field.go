// Package field reads fields of decoded Kubernetes objects (JSON-compatible
// maps) leniently: a missing field or one of the wrong type reads as the
// zero value. Analyzers use it so malformed input can never make them
// panic; the schema analyzer reports the malformed fields themselves.
package field

import "math"

// Get walks path through nested maps and returns the value found (nil when
// any step is missing or not a map).
func Get(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// Map returns the map at path, or nil.
func Map(v any, path ...string) map[string]any {
	m, _ := Get(v, path...).(map[string]any)
	return m
}

// List returns the list at path, or nil.
func List(v any, path ...string) []any {
	l, _ := Get(v, path...).([]any)
	return l
}

// Maps returns the items of the list at path that are maps.
func Maps(v any, path ...string) []map[string]any {
	l := List(v, path...)
	out := make([]map[string]any, 0, len(l))
	for _, it := range l {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// String returns the string at path, or "".
func String(v any, path ...string) string {
	s, _ := Get(v, path...).(string)
	return s
}

// Strings returns the string items of the list at path.
func Strings(v any, path ...string) []string {
	l := List(v, path...)
	out := make([]string, 0, len(l))
	for _, it := range l {
		if s, ok := it.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Int returns the integer at path; ok is false when absent or not an integer.
func Int(v any, path ...string) (int64, bool) {
	switch n := Get(v, path...).(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
			return int64(n), true
		}
	}
	return 0, false
}

// Has reports whether path is set (to anything but null).
func Has(v any, path ...string) bool { return Get(v, path...) != nil }

// StringMap returns the string values of the map at path.
func StringMap(v any, path ...string) map[string]string {
	m := Map(v, path...)
	out := make(map[string]string, len(m))
	for k, val := range m {
		if s, ok := val.(string); ok {
			out[k] = s
		}
	}
	return out
}

// EnsureMap returns the map at path under m, creating every missing step
// (and replacing a step that is not a map) so the caller can set keys in
// it: EnsureMap(o.Body, "metadata", "annotations")[k] = v.
func EnsureMap(m map[string]any, path ...string) map[string]any {
	for _, p := range path {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	return m
}

// Bool returns the boolean at path, or false.
func Bool(v any, path ...string) bool {
	b, _ := Get(v, path...).(bool)
	return b
}
