package analysis

import (
	"strings"

	"github.com/routeguard/routeguard/internal/manifest"
)

// In-object suppression, in the form Istio's analyzers read
// (galley.istio.io/analyze-suppress: "IST0102,IST0103"): the object lists
// the codes routeguard must not report about it, and says why in a second
// annotation, as kube-linter asks of its ignore-check annotations.
const (
	// IgnoreAnnotation lists codes (or globs such as RG1*, or *) separated
	// by commas: findings with those codes about this object are dropped.
	IgnoreAnnotation = "routeguard.io/ignore"
	// IgnoreReasonAnnotation says why (free text; recommended, not read).
	IgnoreReasonAnnotation = "routeguard.io/ignore-reason"
)

// IgnoredByAnnotation reports whether o's routeguard.io/ignore annotation
// lists code (exactly, or by a glob).
func IgnoredByAnnotation(o *manifest.Object, code string) bool {
	v, ok := o.Annotations()[IgnoreAnnotation]
	if !ok {
		return false
	}
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" && Glob(p, code) {
			return true
		}
	}
	return false
}

// ignoredInObject reports whether the rendered object f is about asks not
// to report f.
func (c *Context) ignoredInObject(f Finding) bool {
	k := manifest.Key{Group: f.Object.Group(), Kind: f.Object.Kind, Namespace: f.Object.Namespace, Name: f.Object.Name}
	o, ok := lookup(c.set, k, c.defaultNS)
	return ok && IgnoredByAnnotation(o, f.Code)
}
