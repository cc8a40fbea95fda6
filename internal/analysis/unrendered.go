package analysis

import "github.com/routeguard/routeguard/internal/manifest"

// UnrenderedScope names objects that may exist although routeguard could
// not render them: what an Argo CD Application whose source is in another
// repository, or whose chart cannot be fetched offline, would deploy. A
// reference into such a scope is never dangling: the checks report RG0001
// ("cannot be checked") with Reason.
type UnrenderedScope struct {
	// Namespace the objects would land in; "*" for any namespace and for
	// cluster-scoped objects. "" stands for cluster-scoped objects only.
	Namespace string
	// Kinds limits the scope to these kinds; empty: every kind.
	Kinds []manifest.GroupKind
	// Reason says what could not be rendered, for the finding's message
	// (e.g. "Application argocd/db: its chart comes from a chart repository
	// and the network is off").
	Reason string
}

// Covers reports whether the scope covers an object of gk in ns ("" for
// cluster-scoped objects).
func (u UnrenderedScope) Covers(gk manifest.GroupKind, ns string) bool {
	if u.Namespace != "*" && u.Namespace != ns {
		return false
	}
	if len(u.Kinds) == 0 {
		return true
	}
	for _, k := range u.Kinds {
		if k == gk || (k.Group == gk.Group && k.Kind == "*") {
			return true
		}
	}
	return false
}

// unrenderedScope returns the first unrendered scope covering k.
func (c *Context) unrenderedScope(k manifest.Key) (UnrenderedScope, bool) {
	gk := manifest.GroupKind{Group: k.Group, Kind: k.Kind}
	for _, u := range c.unrendered {
		if u.Covers(gk, k.Namespace) {
			return u, true
		}
	}
	return UnrenderedScope{}, false
}
