package argocd

import (
	"reflect"
	"slices"
	"sync"

	"github.com/routeguard/routeguard/internal/affected"
)

// Unaffected is the ReuseFunc of an affected-only review: an Application
// of the other revision takes head's result when head rendered it (with
// a trace), its definition is the same (name, namespace, the whole
// manifest) and nothing its render observed is among changes. Everything
// else the build does (finding, adopting, expanding, dropping
// Applications, the routing files of those not rendered whole) runs at
// that revision as always. Reasons says, per Application key, why one was
// rendered again.
func Unaffected(head *Result, changes *affected.Changes, reasons *Reasons) ReuseFunc {
	byKey := make(map[string]*AppResult, len(head.Apps))
	for _, a := range head.Apps {
		byKey[a.App.Key()] = a
	}
	return func(app *Application) (*AppResult, bool) {
		why := unaffected(byKey[app.Key()], app, changes)
		if why == "" {
			// Widen only: a change under its manifest-generate-paths
			// affects it even when its render read nothing of it.
			why = watched(app, head.RepoURLs, changes)
		}
		if why != "" {
			reasons.set(app.Key(), why)
		}
		return byKey[app.Key()], why == ""
	}
}

// Reasons are why Applications were rendered again, by key (safe for
// concurrent use: a wave renders concurrently).
type Reasons struct {
	mu sync.Mutex
	m  map[string]string
}

func (r *Reasons) set(key, why string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	if r.m == nil {
		r.m = map[string]string{}
	}
	r.m[key] = why
	r.mu.Unlock()
}

// Of is why the Application with key was rendered again ("" when it was
// not, or was never asked about).
func (r *Reasons) Of(key string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m[key]
}

// unaffected says why h (head's result for app) cannot stand for app's
// render ("" when it can).
func unaffected(h *AppResult, app *Application, changes *affected.Changes) string {
	switch {
	case h == nil:
		return "not at head"
	case h.Reused:
		return "reused at head"
	case h.App.Name != app.Name || h.App.Namespace != app.Namespace || h.App.Twin != app.Twin ||
		!reflect.DeepEqual(h.App.Spec, app.Spec) || !sameBody(h.App, app):
		return "its definition changed"
	}
	return affected.Touches(h.Trace, changes)
}

func sameBody(a, b *Application) bool {
	if a.Object == nil || b.Object == nil {
		return a.Object == b.Object
	}
	return reflect.DeepEqual(a.Object.Body, b.Object.Body)
}

// SameSettings reports whether two builds settled the repository-wide
// choices every render depends on the same way (the repoURLs taken as
// this repository): when not, no result of one stands for the other.
func SameSettings(a, b *Result) bool {
	return slices.Equal(a.RepoURLs, b.RepoURLs)
}
