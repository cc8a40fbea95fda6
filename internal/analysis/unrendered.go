package analysis

import (
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/manifest"
)

// UnrenderedScope names objects that may exist although routeguard could
// not render them: what a HelmRelease whose chart could not be fetched, or
// a Flux Kustomization from another source, would create. A reference into
// such a scope is never dangling: the checks report RG0001 ("cannot be
// checked") with Reason.
//
// The same type (and field names) as issue 16's analysis input for
// unrendered scopes, so the two merge into one.
type UnrenderedScope struct {
	// Namespace the objects would land in; "*" for any namespace and for
	// cluster-scoped objects. "" stands for cluster-scoped objects only.
	Namespace string
	// Kinds limits the scope to these kinds; empty: every kind.
	Kinds []manifest.GroupKind
	// Reason says what could not be rendered, for the finding's message
	// (e.g. `HelmRelease media/jellyfin: its chart is not in the chart
	// cache`).
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

// unrenderedScope returns the first unrendered scope covering gk in ns.
func (c *Context) unrenderedScope(gk manifest.GroupKind, ns string) (UnrenderedScope, bool) {
	for _, u := range c.unrendered {
		if u.Covers(gk, ns) {
			return u, true
		}
	}
	return UnrenderedScope{}, false
}

// unrenderedReason says which unrendered scopes may hold target: the one
// whose reason names the target's name, else the first, and how many more.
func (c *Context) unrenderedReason(target manifest.Key) (string, bool) {
	gk := manifest.GroupKind{Group: target.Group, Kind: target.Kind}
	var covering []UnrenderedScope
	for _, u := range c.unrendered {
		if u.Covers(gk, target.Namespace) {
			covering = append(covering, u)
		}
	}
	if len(covering) == 0 {
		return "", false
	}
	best := covering[0]
	for _, u := range covering {
		if strings.Contains(u.Reason, "/"+target.Name+" ") {
			best = u
			break
		}
	}
	if n := len(covering) - 1; n > 0 {
		return fmt.Sprintf("%s; and %d more", best.Reason, n), true
	}
	return best.Reason, true
}

// unrenderedNamespace reports whether an unrendered scope may hold objects
// of any kind in ns.
func (c *Context) unrenderedNamespace(ns string) bool {
	for _, u := range c.unrendered {
		if u.Namespace == "*" || u.Namespace == ns {
			return true
		}
	}
	return false
}
