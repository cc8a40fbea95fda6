package manifestdiff

import (
	"bytes"
	"cmp"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/printable"
)

// App is what renders objects: an Argo CD Application, a Flux
// Kustomization or HelmRelease ("namespace/name"), or an app path.
type App struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

func (a App) String() string { return a.Kind + " " + a.Name }

// Group is the objects one app renders at one revision.
type Group struct {
	App     App
	Objects []*manifest.Object
}

// Input is what to compare: each revision's objects by app, and the
// pointers each app asks to leave out (an Application's ignoreDifferences,
// applied to its objects at both revisions).
type Input struct {
	Base, Head []Group
	Ignore     map[App][]Pointer
	// BaseUnbuilt and HeadUnbuilt are the apps not built (or built
	// partly) at that revision: an object of theirs the other revision
	// has is not compared (it is not added or removed, only not built),
	// and NotCompared says so.
	BaseUnbuilt, HeadUnbuilt map[App]bool
}

// Options tune the comparison.
type Options struct {
	// Pointers are the user's (--ignore-pointer), for every app.
	Pointers []Pointer
	// MaxObjectLines is the most lines an object may have at either
	// revision to be diffed (0: DefaultMaxObjectLines); a larger one is
	// listed with its size and a notice, not diffed.
	MaxObjectLines int
}

// DefaultMaxObjectLines bounds one object's diff: 20,000 lines a side.
const DefaultMaxObjectLines = 20000

// Level is a notice's severity.
type Level string

const (
	LevelNote    Level = "note"
	LevelWarning Level = "warning"
)

// Notice is something the review could not do or leaves out.
type Notice struct {
	Level Level
	Text  string
}

// Change is how an object differs.
type Change string

const (
	Added   Change = "added"
	Removed Change = "removed"
	Changed Change = "changed"
)

// ObjectDiff is one object's diff.
type ObjectDiff struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	Change     Change `json:"change"`
	// RenamedFrom is the base name of an object whose name Kustomize
	// suffixes with a hash of its content (configMapGenerator,
	// secretGenerator): the two names are diffed as one object.
	RenamedFrom string `json:"renamedFrom,omitempty"`
	// MovedFrom is the app that rendered the object at base, when another
	// renders it at head.
	MovedFrom *App `json:"movedFrom,omitempty"`
	// LinesAdded and LinesRemoved count the diff's + and - lines.
	LinesAdded   int `json:"linesAdded"`
	LinesRemoved int `json:"linesRemoved"`
	// OmittedLines, when not 0, is the object's size (base and head
	// lines): over Options.MaxObjectLines, it was not diffed.
	OmittedLines int    `json:"omittedLines,omitempty"`
	Hunks        []Hunk `json:"hunks"`
}

// Header names the object: "apps/v1 Deployment shop/web".
func (o ObjectDiff) Header() string {
	s := o.APIVersion + " " + o.Kind + " "
	if o.Namespace != "" {
		s += o.Namespace + "/"
	}
	return s + o.Name
}

// AppDiff is the diff of one app's objects.
type AppDiff struct {
	App     App          `json:"app"`
	Objects []ObjectDiff `json:"objects"`
}

// Result is the manifest review.
type Result struct {
	Apps []AppDiff
	// Filters are the noise filters and pointers that removed something
	// from an object at either revision.
	Filters []string
	// FilteredOnly counts the objects that differ only in what the
	// filters removed (not shown).
	FilteredOnly int
	// Redacted counts the Secrets whose values were redacted.
	Redacted int
	// NotCompared are the apps whose objects at one revision were not
	// compared because the app was not built (or built partly) at the
	// other, with how many objects that leaves out.
	NotCompared []NotCompared
	Notices     []Notice
}

// NotCompared is an app not built at one revision.
type NotCompared struct {
	App App `json:"app"`
	// Revision is where it was not built: "base" or "head".
	Revision string `json:"notBuiltAt"`
	// Objects counts its objects at the other revision, not compared.
	Objects int `json:"objectsNotCompared"`
}

// Changed reports whether any object differs.
func (r *Result) Changed() bool { return len(r.Apps) > 0 }

// Objects counts the objects that differ.
func (r *Result) Objects() int {
	n := 0
	for _, a := range r.Apps {
		n += len(a.Objects)
	}
	return n
}

type side struct {
	obj *manifest.Object
	app App
}

// Compare diffs the revisions' objects. Objects are matched by identity
// (group, kind, namespace, name) across apps, as the cluster sees them;
// one that moved from one app to another is diffed under its head app.
func Compare(in Input, opts Options) (*Result, error) {
	limit := cmp.Or(opts.MaxObjectLines, DefaultMaxObjectLines)
	base, head := indexByKey(in.Base), indexByKey(in.Head)
	keys := map[manifest.Key]bool{}
	for k := range base {
		keys[k] = true
	}
	for k := range head {
		keys[k] = true
	}
	sorted := make([]manifest.Key, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	slices.SortFunc(sorted, compareKeys)
	res := &Result{}
	filters := map[string]bool{}
	byApp := map[App][]ObjectDiff{}
	var added, removed []manifest.Key
	skipped := map[NotCompared]int{}
	for _, k := range sorted {
		b, inBase := base[k]
		h, inHead := head[k]
		switch {
		case !inBase && in.BaseUnbuilt[h.app]:
			skipped[NotCompared{App: h.app, Revision: "base"}]++
		case !inHead && in.HeadUnbuilt[b.app]:
			skipped[NotCompared{App: b.app, Revision: "head"}]++
		case !inBase:
			added = append(added, k)
		case !inHead:
			removed = append(removed, k)
		default:
			d, ok, err := res.diff(b, h, in.Ignore, opts.Pointers, filters, limit)
			if err != nil {
				return nil, err
			}
			if ok {
				byApp[h.app] = append(byApp[h.app], d)
			}
		}
	}
	renamed := pairRenamed(removed, added, base, head)
	for _, k := range removed {
		b := base[k]
		if hk, ok := renamed[k]; ok {
			h := head[hk]
			d, ok, err := res.diff(b, h, in.Ignore, opts.Pointers, filters, limit)
			if err != nil {
				return nil, err
			}
			if ok {
				d.RenamedFrom = b.obj.Name
				byApp[h.app] = append(byApp[h.app], d)
			}
			continue
		}
		d, _, err := res.diff(b, side{}, in.Ignore, opts.Pointers, filters, limit)
		if err != nil {
			return nil, err
		}
		byApp[b.app] = append(byApp[b.app], d)
	}
	paired := map[manifest.Key]bool{}
	for _, hk := range renamed {
		paired[hk] = true
	}
	for _, k := range added {
		if paired[k] {
			continue
		}
		h := head[k]
		d, _, err := res.diff(side{}, h, in.Ignore, opts.Pointers, filters, limit)
		if err != nil {
			return nil, err
		}
		byApp[h.app] = append(byApp[h.app], d)
	}
	for app, objs := range byApp {
		slices.SortFunc(objs, compareObjects)
		res.Apps = append(res.Apps, AppDiff{App: app, Objects: objs})
	}
	slices.SortFunc(res.Apps, func(a, b AppDiff) int {
		return cmp.Or(cmp.Compare(a.App.Kind, b.App.Kind), cmp.Compare(a.App.Name, b.App.Name))
	})
	for nc, n := range skipped {
		nc.Objects = n
		res.NotCompared = append(res.NotCompared, nc)
	}
	slices.SortFunc(res.NotCompared, func(a, b NotCompared) int {
		return cmp.Or(cmp.Compare(a.App.Kind, b.App.Kind), cmp.Compare(a.App.Name, b.App.Name), cmp.Compare(a.Revision, b.Revision))
	})
	for _, nc := range res.NotCompared {
		res.Notices = append(res.Notices, Notice{Level: LevelWarning, Text: fmt.Sprintf("%s was not built (or built partly) at %s: %s of its at the other revision not compared in the manifest diff",
			nc.App, nc.Revision, plural(nc.Objects, "object"))})
	}
	for _, name := range DefaultFilters {
		if filters[name] {
			res.Filters = append(res.Filters, name)
			delete(filters, name)
		}
	}
	res.Filters = append(res.Filters, slices.Sorted(func(yield func(string) bool) {
		for f := range filters {
			if !yield(f) {
				return
			}
		}
	})...)
	return res, nil
}

// indexByKey files each object under its key, the first app to render it
// winning (as the routing review merges the apps).
func indexByKey(groups []Group) map[manifest.Key]side {
	out := map[manifest.Key]side{}
	for _, g := range groups {
		for _, o := range g.Objects {
			if _, dup := out[o.Key()]; !dup {
				out[o.Key()] = side{obj: o, app: g.App}
			}
		}
	}
	return out
}

func compareKeys(a, b manifest.Key) int {
	return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}

func compareObjects(a, b ObjectDiff) int {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.APIVersion, b.APIVersion), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}

// kustomizeHash is the suffix Kustomize's name-hash gives generated
// ConfigMaps and Secrets: "-" and ten characters of its alphabet (hex
// with 0, 1, 3, a and e replaced by g, h, k, m and t).
var kustomizeHash = regexp.MustCompile(`-[2456789bcdfghkmt]{10}$`)

// pairRenamed pairs each removed object with the added one of the same
// kind and namespace whose name is the same but for a Kustomize hash
// suffix, when exactly one of each has that name.
func pairRenamed(removed, added []manifest.Key, base, head map[manifest.Key]side) map[manifest.Key]manifest.Key {
	type stem struct {
		group, kind, ns, name string
	}
	stemOf := func(k manifest.Key) (stem, bool) {
		loc := kustomizeHash.FindStringIndex(k.Name)
		if loc == nil {
			return stem{}, false
		}
		return stem{k.Group, k.Kind, k.Namespace, k.Name[:loc[0]]}, true
	}
	gone, came := map[stem][]manifest.Key{}, map[stem][]manifest.Key{}
	for _, k := range removed {
		if s, ok := stemOf(k); ok {
			gone[s] = append(gone[s], k)
		}
	}
	for _, k := range added {
		if s, ok := stemOf(k); ok {
			came[s] = append(came[s], k)
		}
	}
	out := map[manifest.Key]manifest.Key{}
	for s, g := range gone {
		if c := came[s]; len(g) == 1 && len(c) == 1 && base[g[0]].app == head[c[0]].app {
			out[g[0]] = c[0]
		}
	}
	return out
}

// diff is the diff of one object (b or h empty for one added or removed);
// ok is false when the two are the same after the filters.
func (r *Result) diff(b, h side, ignore map[App][]Pointer, user []Pointer, filters map[string]bool, limit int) (ObjectDiff, bool, error) {
	ref := cmp.Or(h.obj, b.obj)
	d := ObjectDiff{APIVersion: ref.APIVersion, Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name}
	if b.obj != nil && h.obj != nil && b.app == h.app && reflect.DeepEqual(b.obj.Body, h.obj.Body) {
		return d, false, nil // the same object through the same filters
	}
	app := cmp.Or(h.app, b.app)
	pointers := append(slices.Clip(user), ignore[app]...)
	var bodies [2]map[string]any
	for i, s := range []side{b, h} {
		if s.obj == nil {
			continue
		}
		bodies[i] = deepCopy(s.obj.Body)
		for _, f := range filterNoise(bodies[i]) {
			filters[f] = true
		}
		for _, f := range filterPointers(bodies[i], s.obj.Group(), s.obj.Kind, s.obj.Namespace, s.obj.Name, pointers) {
			filters[f] = true
		}
	}
	secret := isSecret(ref.Group(), ref.Kind)
	if secret {
		redactSecrets(bodies[0], bodies[1])
	}
	var lines [2][]string
	for i, body := range bodies {
		if body == nil {
			continue
		}
		text, err := yamlOf(body)
		if err != nil {
			return d, false, fmt.Errorf("%s: %w", ref, err)
		}
		lines[i] = splitLines(text)
	}
	switch {
	case b.obj == nil:
		d.Change = Added
	case h.obj == nil:
		d.Change = Removed
	default:
		d.Change = Changed
		if slices.Equal(lines[0], lines[1]) {
			if !secret && !reflect.DeepEqual(b.obj.Body, h.obj.Body) && !sameBody(b.obj.Body, h.obj.Body) {
				r.FilteredOnly++
			}
			return d, false, nil
		}
		if b.app != h.app {
			moved := b.app
			d.MovedFrom = &moved
		}
	}
	if secret {
		r.Redacted++
	}
	if n := len(lines[0]) + len(lines[1]); len(lines[0]) > limit || len(lines[1]) > limit {
		d.OmittedLines, d.Hunks = n, []Hunk{}
		r.Notices = append(r.Notices, Notice{Level: LevelWarning, Text: fmt.Sprintf("%s %s: diff of %s lines omitted, too large (over %s lines a side)",
			app, d.Header(), printable.Count(n), printable.Count(limit))})
		return d, true, nil
	}
	script := diffLines(lines[0], lines[1])
	d.Hunks = hunks(lines[0], lines[1], script)
	for _, o := range script {
		switch o.kind {
		case '+':
			d.LinesAdded++
		case '-':
			d.LinesRemoved++
		}
	}
	return d, true, nil
}

// yamlOf is the object as routeguard render writes it, without the
// document marker.
func yamlOf(body map[string]any) (string, error) {
	var b bytes.Buffer
	o := &manifest.Object{Body: body}
	if err := manifest.WriteYAML(&b, []*manifest.Object{o}); err != nil {
		return "", err
	}
	return strings.TrimPrefix(b.String(), "---\n"), nil
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func sameBody(a, b map[string]any) bool {
	x, err1 := yamlOf(a)
	y, err2 := yamlOf(b)
	return err1 == nil && err2 == nil && x == y
}

// deepCopy copies a JSON-compatible value.
func deepCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = copyValue(v)
	}
	return out
}

func copyValue(v any) any {
	switch c := v.(type) {
	case map[string]any:
		return deepCopy(c)
	case []any:
		out := make([]any, len(c))
		for i, e := range c {
			out[i] = copyValue(e)
		}
		return out
	}
	return v
}
