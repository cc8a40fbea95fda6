package flux

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// With Options.TraceNodes each Kustomization and HelmRelease is built with
// a trace of what its build observed of this checkout (Node.Trace): what
// Kustomize read, listed and globbed of the source through its file
// system, the whole of spec.path (kustomize-controller's generator lists
// it), and what the Helm render read of a chart in Git and its values
// files. What a trace cannot vouch for makes it opaque: a source that is
// not this checkout, remote Kustomize bases, ResourceSets.
//
// What a build reads of the cluster (the objects the tree applied before
// it) is its inputs (inputsOf): every Flux source, the substituteFrom and
// valuesFrom ConfigMaps and Secrets it names and what makes them, and for a
// Kustomization the substitution webhook's (webhook.go) and its own. A node
// of another revision whose object, inputs and traced files are the same
// builds the same objects (Options.Reuse takes them instead of building).

// traceFS records what Kustomize asks of the source directory dir.
type traceFS struct {
	filesys.FileSystem
	t   *confine.Trace
	dir string
}

// record notes an observation of p. A path outside dir is not recorded:
// the confined file system refuses it at every revision alike.
func (f traceFS) record(kind confine.ObservationKind, p string) {
	abs, err := filepath.Abs(p)
	if err != nil {
		f.t.Opaque("Kustomize asked for " + p + ", which is not a path")
		return
	}
	if rel, err := filepath.Rel(f.dir, abs); err != nil || !filepath.IsLocal(rel) && rel != "." {
		return
	}
	f.t.Record(kind, f.dir, abs)
}

func (f traceFS) ReadFile(p string) ([]byte, error) {
	f.record(confine.ObservedContent, p)
	f.record(confine.ObservedStat, p)
	return f.FileSystem.ReadFile(p)
}

func (f traceFS) Open(p string) (filesys.File, error) {
	f.record(confine.ObservedContent, p)
	f.record(confine.ObservedStat, p)
	return f.FileSystem.Open(p)
}

func (f traceFS) Exists(p string) bool {
	f.record(confine.ObservedStat, p)
	return f.FileSystem.Exists(p)
}

func (f traceFS) IsDir(p string) bool {
	f.record(confine.ObservedStat, p)
	return f.FileSystem.IsDir(p)
}

func (f traceFS) ReadDir(p string) ([]string, error) {
	f.record(confine.ObservedListing, p)
	f.record(confine.ObservedStat, p)
	return f.FileSystem.ReadDir(p)
}

func (f traceFS) Glob(pattern string) ([]string, error) {
	f.record(confine.ObservedGlob, pattern)
	return f.FileSystem.Glob(pattern)
}

func (f traceFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	f.record(confine.ObservedStat, p)
	return f.FileSystem.CleanedAbs(p)
}

func (f traceFS) Walk(p string, walkFn filepath.WalkFunc) error {
	f.record(confine.ObservedStat, p) // everything below it
	return f.FileSystem.Walk(p, walkFn)
}

// originTrace is the trace the node's build records what it reads of
// source o into, paths relative to o's directory: the node's own for this
// checkout; for a directory of this checkout that --source maps (a
// FluxInstance or OCIRepository syncing an artifact pushed from it), one
// that done adds to the node's under the directory's path; nil, the
// node's trace made opaque, for any other source. done must be called
// once the build has read what it reads.
func (b *nodeRender) originTrace(n *Node, o *origin) (t *confine.Trace, done func()) {
	if n.Trace == nil {
		return nil, func() {}
	}
	if o.self && o.real == b.root {
		return n.Trace, func() {}
	}
	if rel, err := filepath.Rel(b.root, o.real); err == nil && o.real != "" && o.files == nil && filepath.IsLocal(rel) {
		sub := confine.NewTrace()
		return sub, func() { n.Trace.AddUnder(sub, filepath.ToSlash(rel)) }
	}
	n.Trace.Opaque("its source, " + o.name + ", is not this checkout")
	return nil, func() {}
}

// inputsOf is what building n reads of the cluster and of the run, as a
// string ("" when it cannot be told: n is never taken from another
// revision). It is taken when n starts building (the state does not
// change while a wave builds).
func (b *builder) inputsOf(n *Node) string {
	if n.Parent == nil || n.IsResourceSet() {
		return ""
	}
	var sb strings.Builder
	put := func(what string, o *manifest.Object) {
		body, err := json.Marshal(o.Body)
		if err != nil {
			body = []byte("unencodable")
		}
		fmt.Fprintf(&sb, "%s %s %s %s\n", what, o.Key(), o.Source, body)
	}
	fmt.Fprintf(&sb, "object %s %s parent %s\n", n.Key(), n.Object.Source, n.Parent.Key())
	// Every source (and what assembles one): few, and looked up by
	// several rules (the sourceRef, a chart's, a GitRepository with the
	// same URL as this checkout's).
	for _, gk := range sourceObjectKinds {
		objs := b.state.set.ByKind(gk.Group, gk.Kind)
		slices.SortFunc(objs, func(x, y *manifest.Object) int { return strings.Compare(x.Key().String(), y.Key().String()) })
		for _, o := range objs {
			put("source", o)
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(b.self), func(x, y SourceKey) int { return strings.Compare(x.String(), y.String()) }) {
		fmt.Fprintf(&sb, "self %s %q\n", k, b.guessed[k])
	}
	for _, k := range slices.SortedFunc(maps.Keys(b.mapped), func(x, y SourceKey) int { return strings.Compare(x.String(), y.String()) }) {
		// A directory of the checkout by its path in it: the same
		// mapping at every revision (its files are the trace's).
		dir := b.mapped[k]
		if rel, err := filepath.Rel(b.root, dir); err == nil && (rel == "." || filepath.IsLocal(rel)) {
			dir = "checkout:" + filepath.ToSlash(rel)
		}
		fmt.Fprintf(&sb, "mapped %s %s\n", k, dir)
	}
	// The ConfigMaps and Secrets its postBuild.substituteFrom or
	// valuesFrom name, and what makes a Secret of the name.
	var refs []map[string]any
	refs = append(refs, field.Maps(n.Object.Body, "spec", "postBuild", "substituteFrom")...)
	refs = append(refs, field.Maps(n.Object.Body, "spec", "valuesFrom")...)
	for _, r := range refs {
		name := field.String(r, "name")
		for _, kind := range []string{"ConfigMap", "Secret"} {
			if o, ok := b.state.lookup(kind, n.Object.Namespace, name); ok {
				put("ref", o)
			} else {
				fmt.Fprintf(&sb, "ref %s %s/%s absent\n", kind, n.Object.Namespace, name)
			}
		}
		if by, ok := b.state.madeBy(n.Object.Namespace, name); ok {
			fmt.Fprintf(&sb, "made %s/%s by %s\n", n.Object.Namespace, name, by)
		}
	}
	// A substitution webhook writes into a Kustomization what the
	// ConfigMaps and Secrets its values name hold (mutate).
	if w := b.webhook(); w != nil && n.IsKustomization() {
		fmt.Fprintf(&sb, "webhook %s in %s: %q %q\n", w.by, w.namespace, w.configMaps, w.secrets)
		for _, r := range []struct {
			kind  string
			names []string
		}{{"ConfigMap", w.configMaps}, {"Secret", w.secrets}} {
			for _, name := range r.names {
				if o, ok := b.state.lookup(r.kind, w.namespace, name); ok {
					put("webhook", o)
				} else {
					fmt.Fprintf(&sb, "webhook %s %s/%s absent\n", r.kind, w.namespace, name)
				}
				if by, ok := b.state.madeBy(w.namespace, name); ok {
					fmt.Fprintf(&sb, "webhook made %s/%s by %s\n", w.namespace, name, by)
				}
			}
		}
	}
	return sb.String()
}

// sourceObjectKinds are the kinds a build looks up as sources.
var sourceObjectKinds = []manifest.GroupKind{
	{Group: SourceGroup, Kind: "GitRepository"},
	{Group: SourceGroup, Kind: "OCIRepository"},
	{Group: SourceGroup, Kind: "Bucket"},
	{Group: SourceGroup, Kind: "HelmRepository"},
	{Group: SourceGroup, Kind: "HelmChart"},
	{Group: SourceGroup, Kind: "ExternalArtifact"},
	{Group: SourceExtensionsGroup, Kind: "ArtifactGenerator"},
}

// take makes n what h (the same node of another revision, built with the
// same object, inputs and files) built: its objects (copies) and what it
// noted.
func (b *builder) take(n, h *Node, otherRoot string) {
	n.Status, n.Reason, n.SkipKind, n.MissingSource = h.Status, h.Reason, h.SkipKind, h.MissingSource
	n.Objects = make([]*manifest.Object, len(h.Objects))
	for i, o := range h.Objects {
		c := *o
		c.Body = deepCopy(o.Body).(map[string]any)
		n.Objects[i] = &c
	}
	n.Dir = h.Dir
	if rel, err := filepath.Rel(otherRoot, h.Dir); h.Dir != "" && err == nil && (filepath.IsLocal(rel) || rel == ".") {
		n.Dir = filepath.Join(b.root, rel)
	}
	n.Unrendered, n.Partial, n.RoutingFiles = slices.Clone(h.Unrendered), slices.Clone(h.Partial), slices.Clone(h.RoutingFiles)
	n.findings, n.notices, n.clusterSources, n.mutatedBy = slices.Clone(h.findings), slices.Clone(h.notices), slices.Clone(h.clusterSources), h.mutatedBy
	n.Trace, n.inputs, n.Reused = h.Trace, h.inputs, true
}

// deepCopy copies a decoded YAML or JSON value.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}
