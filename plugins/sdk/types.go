package sdk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Severity of a finding: "error", "warning" or "info".
type Severity string

// Severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

// Valid reports whether s is one of the three severities.
func (s Severity) Valid() bool {
	return s == SeverityError || s == SeverityWarning || s == SeverityInfo
}

// Code is a finding code a plugin may report. IDs are upper-case letters
// followed by digits (e.g. "TH001"); the prefixes RG and IST belong to
// routeguard and Istio.
type Code struct {
	ID          string   `json:"id"`
	Severity    Severity `json:"severity"`
	Description string   `json:"description"`
}

// Metadata describes a plugin.
type Metadata struct {
	Name        string `json:"name"`    // lower-case, e.g. "team-hosts"
	Version     string `json:"version"` // the plugin's own version
	Description string `json:"description,omitempty"`
	Codes       []Code `json:"codes"` // every code the plugin may report
	// Inputs are the kinds whose whole objects the plugin reads. Objects
	// of other kinds arrive as stubs (apiVersion, kind, metadata.name and
	// metadata.namespace only), so the plugin still sees what exists and
	// in which namespaces, and the host sends less. Empty: every object
	// arrives whole.
	Inputs []Kind `json:"inputs,omitempty"`
}

// Kind names a kind of object: its API group ("" for core) and kind.
// Kind "*" stands for every kind of the group.
type Kind struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
}

// Wants reports whether a plugin whose metadata declares inputs reads
// objects of group and kind whole.
func (md *Metadata) Wants(group, kind string) bool {
	if len(md.Inputs) == 0 {
		return true
	}
	for _, k := range md.Inputs {
		if k.Group == group && (k.Kind == kind || k.Kind == "*") {
			return true
		}
	}
	return false
}

// Object is one rendered Kubernetes object. Body is the whole object as
// JSON values (map[string]any, []any, string, int64 for integers, float64,
// bool, nil); APIVersion, Kind, Namespace and Name are copied out of it.
type Object struct {
	APIVersion string `json:"-"`
	Kind       string `json:"-"`
	Namespace  string `json:"-"` // as written; "" when the object names none
	Name       string `json:"-"`

	File string `json:"file,omitempty"` // where it is defined, relative to the repository root
	Line int    `json:"line,omitempty"` // 1-based line of the object's first key
	// Context marks objects rendered only to resolve references (the
	// contextPaths of .routeguard.yaml); findings about them are dropped.
	Context bool           `json:"context,omitempty"`
	Body    map[string]any `json:"body"`
}

// Group returns the object's API group ("" for core).
func (o *Object) Group() string {
	if i := strings.IndexByte(o.APIVersion, '/'); i >= 0 {
		return o.APIVersion[:i]
	}
	return ""
}

// Ref returns the reference findings about o carry.
func (o *Object) Ref() ObjectRef {
	return ObjectRef{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
}

// fill copies the identifying fields out of Body.
func (o *Object) fill() {
	o.APIVersion, _ = o.Body["apiVersion"].(string)
	o.Kind, _ = o.Body["kind"].(string)
	md, _ := o.Body["metadata"].(map[string]any)
	o.Namespace, _ = md["namespace"].(string)
	o.Name, _ = md["name"].(string)
}

// Request is the input of one Analyze call.
type Request struct {
	// Objects are the rendered objects (and context objects, marked).
	Objects []Object `json:"objects"`
	// Config is the plugin's own config from .routeguard.yaml, as JSON
	// (null when none is given). Use DecodeConfig.
	Config json.RawMessage `json:"config,omitempty"`
	// DefaultNamespace is the namespace of objects that name none.
	DefaultNamespace string `json:"defaultNamespace"`
}

// DecodeConfig decodes the plugin's config into v, refusing unknown fields
// so that a typo in .routeguard.yaml is an error, not a silent default.
func (r *Request) DecodeConfig(v any) error {
	if len(r.Config) == 0 || string(r.Config) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(r.Config))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("plugin config: %w", err)
	}
	return nil
}

// Namespace returns o's namespace, or the request's default namespace
// when o names none (also for cluster-scoped kinds: check Kind first).
func (r *Request) Namespace(o *Object) string {
	if o.Namespace != "" {
		return o.Namespace
	}
	return r.DefaultNamespace
}

// ObjectRef names the object a finding is about.
type ObjectRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
}

// Finding is one problem a plugin found.
type Finding struct {
	Code     string    `json:"code"`               // one of the plugin's declared codes
	Severity Severity  `json:"severity,omitempty"` // empty: the code's declared severity
	Message  string    `json:"message"`            // what is wrong and how to fix it
	Object   ObjectRef `json:"object"`
	// File and Line point into the source; empty: the object's position.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// Findingf returns a finding with code about o, at o's position.
func Findingf(o *Object, code, format string, a ...any) Finding {
	return Finding{Code: code, Message: fmt.Sprintf(format, a...), Object: o.Ref(), File: o.File, Line: o.Line}
}

// response is the output of one Analyze call on the wire.
type response struct {
	Findings []Finding `json:"findings"`
}
