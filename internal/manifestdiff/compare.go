package manifestdiff

import (
	"bytes"
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/printable"
)

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
