package manifest

import (
	"fmt"
	"strings"
)

// Source says where an object came from.
type Source struct {
	File string // path as shown to users (relative to the repository root when known)
	Line int    // 1-based line of the object's first key; 0 when unknown
	Doc  int    // 0-based index of the YAML document within File
}

// String renders the source as file:line, the form editors and CI annotate.
func (s Source) String() string {
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d", s.File, s.Line)
	}
	return s.File
}

// GroupKind identifies a kind regardless of version.
type GroupKind struct {
	Group string
	Kind  string
}

// Key identifies one object in a set: two objects with the same key would
// overwrite each other when applied.
type Key struct {
	Group     string
	Kind      string
	Namespace string
	Name      string
}

// String renders the key as "Kind ns/name" (or "Kind name" without namespace).
func (k Key) String() string {
	if k.Namespace == "" {
		return k.Kind + " " + k.Name
	}
	return k.Kind + " " + k.Namespace + "/" + k.Name
}

// Object is one Kubernetes object with its provenance. Body holds the whole
// object as JSON-compatible values (map[string]any, []any, string, int64,
// float64, bool, nil); the other fields are copied out of it for speed.
type Object struct {
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
	Body       map[string]any
	Source     Source
	// Fields knows the line of each field in Source.File (nil: unknown).
	Fields *FieldIndex
}

// Group returns the API group ("" for the core group).
func (o *Object) Group() string {
	if i := strings.IndexByte(o.APIVersion, '/'); i >= 0 {
		return o.APIVersion[:i]
	}
	return ""
}

// Version returns the API version without the group.
func (o *Object) Version() string {
	if i := strings.IndexByte(o.APIVersion, '/'); i >= 0 {
		return o.APIVersion[i+1:]
	}
	return o.APIVersion
}

// GroupKind returns the object's group and kind.
func (o *Object) GroupKind() GroupKind { return GroupKind{Group: o.Group(), Kind: o.Kind} }

// Key returns the identity used for duplicate detection and lookups.
func (o *Object) Key() Key {
	return Key{Group: o.Group(), Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
}

// String renders the object as "Kind ns/name".
func (o *Object) String() string { return o.Key().String() }

// Labels returns metadata.labels as strings (non-string values are skipped).
func (o *Object) Labels() map[string]string { return o.stringMap("labels") }

// Annotations returns metadata.annotations as strings.
func (o *Object) Annotations() map[string]string { return o.stringMap("annotations") }

func (o *Object) stringMap(field string) map[string]string {
	md, _ := o.Body["metadata"].(map[string]any)
	m, _ := md[field].(map[string]any)
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// SetNamespace sets the namespace both on the object and in its body.
func (o *Object) SetNamespace(ns string) {
	o.Namespace = ns
	md, ok := o.Body["metadata"].(map[string]any)
	if !ok {
		md = map[string]any{}
		o.Body["metadata"] = md
	}
	if ns == "" {
		delete(md, "namespace")
		return
	}
	md["namespace"] = ns
}

// FromBody builds an Object from a decoded body, validating the fields every
// Kubernetes object needs. src is recorded as the object's source.
func FromBody(body map[string]any, src Source) (*Object, error) {
	apiVersion, _ := body["apiVersion"].(string)
	kind, _ := body["kind"].(string)
	md, _ := body["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	if name == "" {
		// generateName objects (Helm hooks, Jobs) are valid for the API server.
		name, _ = md["generateName"].(string)
	}
	ns, _ := md["namespace"].(string)
	if msg := shapeProblem(body); msg != "" {
		return nil, &Error{File: src.File, Line: src.Line, Msg: msg}
	}
	var missing []string
	if apiVersion == "" {
		missing = append(missing, "apiVersion")
	}
	if kind == "" {
		missing = append(missing, "kind")
	}
	if name == "" {
		missing = append(missing, "metadata.name")
	}
	if len(missing) > 0 {
		return nil, &Error{File: src.File, Line: src.Line, Msg: fmt.Sprintf(
			"object has no %s; every Kubernetes object needs apiVersion, kind and metadata.name",
			strings.Join(missing, ", "))}
	}
	return &Object{APIVersion: apiVersion, Kind: kind, Namespace: ns, Name: name, Body: body, Source: src}, nil
}

// DeleteAnnotation removes metadata.annotations[key] from an object body,
// dropping the annotations map when it becomes empty.
func DeleteAnnotation(body map[string]any, key string) {
	md, _ := body["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	delete(ann, key)
	if ann != nil && len(ann) == 0 {
		delete(md, "annotations")
	}
}
