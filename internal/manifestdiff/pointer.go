package manifestdiff

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// Pointer is a JSON pointer (RFC 6901) to leave out of the comparison,
// for the objects its scope matches.
type Pointer struct {
	// Group and Kind scope it (globs as Argo CD's ignoreDifferences take
	// them: "*" any); Kind "" is every object.
	Group, Kind string
	// Name and Namespace scope it further ("" any).
	Name, Namespace string
	// Path is the pointer, "/metadata/labels/team".
	Path string
	// From says where it was given, for the notices ("--ignore-pointer",
	// "Application argocd/web ignoreDifferences").
	From string
}

// ParsePointer reads a --ignore-pointer value: "/json/pointer", or
// "Kind:/json/pointer" (or "Kind.group:/json/pointer") for the objects of
// one kind.
func ParsePointer(s string) (Pointer, error) {
	scope, p, ok := strings.Cut(s, ":")
	if !ok {
		scope, p = "", s
	}
	if !strings.HasPrefix(p, "/") {
		return Pointer{}, fmt.Errorf("--ignore-pointer %q: want a JSON pointer starting with / (/metadata/labels/team), or KIND:/pointer (Deployment:/spec/replicas, Deployment.apps:/spec/replicas)", s)
	}
	if _, err := splitPointer(p); err != nil {
		return Pointer{}, fmt.Errorf("--ignore-pointer %q: %w", s, err)
	}
	out := Pointer{Path: p, From: "--ignore-pointer"}
	if ok {
		kind, group, _ := strings.Cut(scope, ".")
		if kind == "" {
			return Pointer{}, fmt.Errorf("--ignore-pointer %q: the kind before : is empty", s)
		}
		out.Kind, out.Group = kind, group
		if group == "" {
			out.Group = "*" // "Deployment:" is every group's Deployment
		}
	}
	return out, nil
}

// splitPointer returns the pointer's reference tokens, ~1 and ~0
// unescaped.
func splitPointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("JSON pointer %q does not start with /", p)
	}
	parts := strings.Split(p[1:], "/")
	for i, t := range parts {
		for j := 0; j < len(t); j++ {
			if t[j] == '~' && (j+1 == len(t) || (t[j+1] != '0' && t[j+1] != '1')) {
				return nil, fmt.Errorf("JSON pointer %q: ~ must be followed by 0 or 1", p)
			}
		}
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

// matches reports whether the pointer's scope takes the object.
func (p Pointer) matches(group, kind, namespace, name string) bool {
	if p.Kind != "" && (!glob(p.Group, group) || !glob(p.Kind, kind)) {
		return false
	}
	return (p.Name == "" || p.Name == name) && (p.Namespace == "" || p.Namespace == namespace)
}

// glob matches as Argo CD's ignoreDifferences group and kind do (a
// pattern without wildcards is the exact string).
func glob(pattern, s string) bool {
	if pattern == s {
		return true
	}
	ok, err := path.Match(pattern, s)
	return err == nil && ok
}

// remove deletes what the pointer names from body, as JSON Patch's
// remove does (an array element shifts the rest); it reports whether
// something was there.
func remove(body map[string]any, p string) bool {
	tokens, err := splitPointer(p)
	if err != nil || len(tokens) == 0 {
		return false
	}
	var parent any = body
	for _, t := range tokens[:len(tokens)-1] {
		parent = child(parent, t)
		if parent == nil {
			return false
		}
	}
	last := tokens[len(tokens)-1]
	switch c := parent.(type) {
	case map[string]any:
		if _, ok := c[last]; !ok {
			return false
		}
		delete(c, last)
		return true
	case []any:
		// An array is changed in place in its parent: find the parent's
		// reference again and set the shortened slice.
		i, ok := index(last, len(c))
		if !ok {
			return false
		}
		short := append(c[:i:i], c[i+1:]...)
		return setAt(body, tokens[:len(tokens)-1], short)
	}
	return false
}

func child(v any, t string) any {
	switch c := v.(type) {
	case map[string]any:
		return c[t]
	case []any:
		if i, ok := index(t, len(c)); ok {
			return c[i]
		}
	}
	return nil
}

func index(t string, n int) (int, bool) {
	if t == "" || (len(t) > 1 && t[0] == '0') {
		return 0, false
	}
	i, err := strconv.Atoi(t)
	return i, err == nil && i >= 0 && i < n
}

// setAt replaces the value at tokens (non-empty) with v.
func setAt(body map[string]any, tokens []string, v any) bool {
	if len(tokens) == 0 {
		return false
	}
	var parent any = body
	for _, t := range tokens[:len(tokens)-1] {
		parent = child(parent, t)
	}
	last := tokens[len(tokens)-1]
	switch c := parent.(type) {
	case map[string]any:
		c[last] = v
		return true
	case []any:
		if i, ok := index(last, len(c)); ok {
			c[i] = v
			return true
		}
	}
	return false
}
