package affected

import (
	"cmp"
	"path"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/shard"
)

// ID identifies an app (kind, namespace, name) across revisions.
type ID = shard.ID

// App is one app at one revision.
type App struct {
	ID ID
	// Definition stands for the app's own manifest (its spec, as the
	// builder found or generated it): an app whose Definition differs
	// between the revisions is affected.
	Definition string
	// Trace is what the app's render observed at this revision; nil when
	// it was not traced (the app is affected).
	Trace *confine.Trace
	// Watch are paths and patterns whose change affects the app besides
	// what its render read (Argo CD's manifest-generate-paths, resolved
	// by WatchPaths).
	Watch []string
	// Needs are the apps whose change can change this one: the parent
	// that generates it, its dependsOn dependencies.
	Needs []ID
}

// Options say what changed and what each app depends on.
type Options struct {
	Changes *Changes
	// Head and Base are the apps of each revision.
	Head, Base []App
	// Global are paths whose change affects every app (the configuration
	// every analysis reads): the whole review is built.
	Global []string
}

// Result says which apps the change affects.
type Result struct {
	// All, when set, says why every app is affected.
	All string
	// Affected are the affected apps with the first reason found.
	Affected map[ID]string
	// Unobserved are the changed paths no app observed: they change no
	// render (every trace vouched for its render) and no definition.
	Unobserved []string
}

// Is reports whether the app with id is affected.
func (r *Result) Is(id ID) bool { return r.All != "" || r.Affected[id] != "" }

// Compute attributes the changes to the apps.
func Compute(opts Options) *Result {
	res := &Result{Affected: map[ID]string{}}
	changes := opts.Changes
	if changes == nil {
		res.All = "the changed files are not known"
		return res
	}
	for _, g := range opts.Global {
		if changes.Has(path.Clean(g)) {
			res.All = g + " changed, and every app's analysis reads it"
			return res
		}
	}
	mark := func(id ID, why string) {
		if res.Affected[id] == "" {
			res.Affected[id] = why
		}
	}
	head, base := byID(opts.Head), byID(opts.Base)
	observed := map[string]bool{}
	for _, side := range []struct {
		name       string
		apps, peer map[ID]*App
	}{{"head", head, base}, {"base", base, head}} {
		for _, id := range sortedIDs(side.apps) {
			a := side.apps[id]
			switch p, ok := side.peer[id]; {
			case !ok:
				mark(id, "exists at "+side.name+" only")
			case p.Definition != a.Definition:
				mark(id, "its definition changed")
			}
			if a.Trace == nil {
				mark(id, "its render was not traced")
			} else if r := a.Trace.OpaqueReason(); r != "" {
				mark(id, "its render cannot be traced whole: "+r)
			}
			for _, o := range a.Trace.Observations() {
				for _, p := range touched(o, changes) {
					observed[p] = true
					mark(id, side.name+" render "+describe(o)+" "+p)
				}
			}
			for _, w := range a.Watch {
				for _, p := range changes.Paths() {
					if watchMatch(w, p) {
						observed[p] = true
						mark(id, "manifest-generate-paths "+w+" names "+p)
					}
				}
			}
		}
	}
	// What an affected app affects: the apps that need it, at either
	// revision, until nothing more is added.
	for changed := true; changed; {
		changed = false
		for _, apps := range []map[ID]*App{head, base} {
			for _, id := range sortedIDs(apps) {
				if res.Affected[id] != "" {
					continue
				}
				for _, n := range apps[id].Needs {
					if res.Affected[n] != "" {
						mark(id, "it needs "+n.String()+", which the change affects")
						changed = true
						break
					}
				}
			}
		}
	}
	for _, p := range changes.Paths() {
		if !observed[p] {
			res.Unobserved = append(res.Unobserved, p)
		}
	}
	return res
}

// Touches returns the first changed path (in path order of the
// observations) that meets what trace t observed, and a description; ""
// when none does. An opaque or missing trace is touched by any change
// (its reason is returned).
func Touches(t *confine.Trace, c *Changes) string {
	if t == nil {
		return "its render was not traced"
	}
	if r := t.OpaqueReason(); r != "" {
		return "its render cannot be traced whole: " + r
	}
	for _, o := range t.Observations() {
		if ps := touched(o, c); len(ps) > 0 {
			return "its render " + describe(o) + " " + ps[0]
		}
	}
	return ""
}

func byID(apps []App) map[ID]*App {
	m := make(map[ID]*App, len(apps))
	for i := range apps {
		m[apps[i].ID] = &apps[i]
	}
	return m
}

func sortedIDs(m map[ID]*App) []ID {
	ids := make([]ID, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b ID) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return ids
}

func describe(o confine.Observation) string {
	switch o.Kind {
	case confine.ObservedContent:
		return "read"
	case confine.ObservedListing:
		return "listed " + o.Path + ", where changed"
	case confine.ObservedGlob:
		return "matched " + o.Path + " against"
	default:
		return "looked at " + o.Path + ", where changed"
	}
}

// touched returns the changed paths that can make observation o come
// out differently. Content: the file itself. Listing: an entry of the
// directory. Glob: a path the pattern matches. Stat and link targets:
// the path, a path below it (a directory added or removed with its files)
// or above it (a link on the way).
func touched(o confine.Observation, c *Changes) []string {
	var out []string
	switch o.Kind {
	case confine.ObservedContent:
		if c.Has(o.Path) {
			out = append(out, o.Path)
		}
		out = append(out, changedAbove(o.Path, c)...)
	case confine.ObservedListing:
		for _, p := range c.Under(o.Path) {
			if p != o.Path && (path.Dir(p) == o.Path || o.Path == "." && !strings.Contains(p, "/")) {
				out = append(out, p)
			}
		}
		if c.Has(o.Path) {
			out = append(out, o.Path)
		}
		out = append(out, changedAbove(o.Path, c)...)
	case confine.ObservedGlob:
		for _, p := range c.Paths() {
			if ok, err := path.Match(o.Path, p); ok || err != nil {
				out = append(out, p)
			}
		}
	default: // stat, lstat, target
		out = append(out, c.Under(o.Path)...)
		out = append(out, changedAbove(o.Path, c)...)
	}
	return out
}

// changedAbove returns the changed parents of p (a directory turned into
// a link, or a link retargeted, on the way to p).
func changedAbove(p string, c *Changes) []string {
	var out []string
	for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
		if c.Has(d) {
			out = append(out, d)
		}
	}
	return out
}

// TouchedPaths returns every changed path that meets what trace t
// observed, sorted and once each (nil for a nil or opaque trace: which
// paths matter cannot be told).
func TouchedPaths(t *confine.Trace, c *Changes) []string {
	if t == nil || t.OpaqueReason() != "" {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, o := range t.Observations() {
		for _, p := range touched(o, c) {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out
}
