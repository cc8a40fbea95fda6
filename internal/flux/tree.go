package flux

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/guard"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/render"
)

// BuildTree builds the tree that starts at opts.Path. The error is for
// input routeguard cannot start from (a path that does not exist or lies
// outside the repository, a --source directory that does not exist, an
// unreadable entry file); everything a Flux
// object gets wrong is in the result.
func BuildTree(ctx context.Context, opts Options) (*Result, error) {
	b, err := newBuilder(opts)
	if err != nil {
		return nil, err
	}
	defer b.cleanup()
	if err := b.enter(); err != nil {
		return nil, err
	}
	if err := b.run(ctx); err != nil {
		return nil, err
	}
	return b.result(), nil
}

// discover adds a Flux object a node applies as a new node (once per key).
func (b *builder) discover(o *manifest.Object, parent *Node) *Node {
	if !isFluxNode(o) {
		return nil
	}
	if n, ok := b.byKey[o.Key()]; ok {
		return n
	}
	n := &Node{Object: o, Parent: parent, index: len(b.nodes)}
	n.dependsOn = dependsOnOf(o)
	if o.Kind == "Kustomization" {
		b.syncSourceHere(sourceRef(field.Map(o.Body, "spec", "sourceRef"), o.Namespace), field.String(o.Body, "spec", "path"))
	}
	b.nodes = append(b.nodes, n)
	b.byKey[o.Key()] = n
	return n
}

func isFluxNode(o *manifest.Object) bool {
	return (o.Group() == KustomizeGroup && o.Kind == "Kustomization") || (o.Group() == HelmGroup && o.Kind == "HelmRelease") || isResourceSet(o)
}

// dependsOnOf reads spec.dependsOn (namespace defaulting to the object's):
// of the same kind for a Kustomization or HelmRelease, of any kind its
// apiVersion and kind name for a ResourceSet.
func dependsOnOf(o *manifest.Object) []manifest.Key {
	var out []manifest.Key
	for _, d := range field.Maps(o.Body, "spec", "dependsOn") {
		name := field.String(d, "name")
		if name == "" {
			continue
		}
		k := manifest.Key{Group: o.Group(), Kind: o.Kind, Namespace: cmp.Or(field.String(d, "namespace"), o.Namespace), Name: name}
		if isResourceSet(o) {
			group, _, _ := strings.Cut(field.String(d, "apiVersion"), "/")
			if !strings.Contains(field.String(d, "apiVersion"), "/") {
				group = ""
			}
			k.Group, k.Kind = group, field.String(d, "kind")
		}
		out = append(out, k)
	}
	return out
}

// run builds pending nodes in waves until none is left. A node is ready
// when what it reads from the cluster (its sources, substituteFrom and
// valuesFrom ConfigMaps and Secrets) is applied or known to be made in the
// cluster; when no node is ready, every pending node is built with what
// there is. Each wave builds concurrently and is merged in discovery
// order, so the result does not depend on timing.
func (b *builder) run(ctx context.Context) error {
	workers := cmp.Or(b.opts.Workers, runtime.GOMAXPROCS(0))
	done := 0
	retried := map[*Node]bool{}
	for {
		if done == len(b.nodes) {
			// A node built while stuck may have taken a source for the
			// cluster's that a node built later applies or makes: build
			// it again, once, now that the source is there.
			again := b.retryable(retried)
			if len(again) == 0 {
				break
			}
			for _, n := range again {
				retried[n] = true
				n.reset()
			}
			b.restate()
			done = 0
			b.compact(&done)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		var wave []*Node
		for _, n := range b.nodes[done:] {
			if n.Status == Pending && b.ready(n) {
				wave = append(wave, n)
			}
		}
		if len(wave) == 0 {
			for _, n := range b.nodes[done:] {
				if n.Status == Pending {
					wave = append(wave, n)
				}
			}
		}
		sem := make(chan struct{}, workers)
		var wg sync.WaitGroup
		errs := make([]error, len(wave))
		for i, n := range wave {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				errs[i] = b.build(ctx, n)
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
		stale := false
		for _, n := range wave {
			stale = b.merge(n) || stale
		}
		if stale {
			// A rebuilt node produced a child that differs from the one
			// built before: the child is pending again and what it
			// applied is no longer in the cluster.
			b.restate()
			done = 0
		}
		// Nodes are built in waves, not in index order: move the finished
		// ones before the pending ones so done counts a prefix.
		b.compact(&done)
	}
	return nil
}

// retryable returns the built nodes (not yet retried) that took a required
// substituteFrom/valuesFrom source for one only the cluster has, when the
// tree now applies it or an object that makes it.
func (b *builder) retryable(retried map[*Node]bool) []*Node {
	var out []*Node
	webhook := b.webhook()
	for _, n := range b.nodes {
		if retried[n] {
			continue
		}
		// Built (or failed) before the tree's substitution webhook was
		// known, with variables it would have set: build it again.
		if webhook != nil && n.IsKustomization() && n.mutatedBy == "" && (n.Status == Failed || n.Status == Built && unsubstituted(n.Objects)) {
			out = append(out, n)
			continue
		}
		if n.Status != Built {
			continue
		}
		for _, c := range n.clusterSources {
			if c.Why != whyNotInRepo && c.Why != whyOptionalNotInRepo {
				continue
			}
			// Only what another node applies is worth a retry: n's own
			// objects are gone while it is built again.
			obj, present := b.state.lookup(c.Kind, c.Key.ns, c.Key.name)
			present = present && b.state.owner[obj.Key()] != n
			m, made := b.state.maker(c.Key.ns, c.Key.name)
			made = made && m.node != n
			if present || made && c.Kind == "Secret" {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

// unsubstituted reports whether objects use variables without a default
// (left as written: no substitution ran).
func unsubstituted(objs []*manifest.Object) bool {
	set := manifest.NewSet()
	for _, o := range objs {
		_ = set.Add(o)
	}
	return len(variablesWithoutDefault(set)) > 0
}

// compact keeps b.nodes in discovery order and advances done past the
// leading finished nodes.
func (b *builder) compact(done *int) {
	for *done < len(b.nodes) && b.nodes[*done].Status != Pending {
		*done++
	}
}

// build builds one node; a failure is the node's status, not an error.
func (b *builder) build(ctx context.Context, n *Node) (err error) {
	start := time.Now()
	if b.opts.TraceNodes || b.opts.Reuse != nil || b.opts.Shard != nil || b.opts.Carried != nil {
		n.inputs = b.inputsOf(n)
	}
	if h := b.opts.Reuse.of(n); h != nil {
		b.take(n, h, b.opts.Reuse.Head.RepoRoot)
		b.opts.progress(n, Finished, 0)
		return nil
	}
	if h := b.opts.Carried.of(n, b.root); h != nil {
		b.take(n, h, b.root)
		n.Reused = h.Reused // as the shard built it
		b.opts.progress(n, Finished, 0)
		return nil
	}
	if b.leaves(n) {
		return nil
	}
	defer b.record(n)
	if b.opts.TraceNodes {
		n.Trace = confine.NewTrace()
		if n.IsResourceSet() {
			n.Trace.Opaque("ResourceSets are not traced")
		}
	}
	b.opts.progress(n, Started, 0)
	end := guard.Begin("building " + n.Object.Kind + " " + n.Object.Namespace + "/" + n.Object.Name + " (" + n.Object.Source.String() + ")")
	defer end()
	var objs []*manifest.Object
	func() {
		defer func() {
			if r := recover(); r != nil {
				objs, err = nil, fmt.Errorf("routeguard failed while building it (%v); this is a routeguard bug, please report it", r)
			}
		}()
		switch {
		case n.IsKustomization():
			objs, err = b.buildKustomization(ctx, n)
		case n.IsResourceSet():
			objs, err = b.buildResourceSet(n)
		default:
			objs, err = b.buildHelmRelease(ctx, n)
		}
		if err == nil {
			// What the controller would apply: a name the API server
			// refuses fails the apply, so the node fails here.
			err = render.CheckNames(objs)
		}
	}()
	n.Duration = time.Since(start)
	var se *skipError
	switch {
	case errors.As(err, &se):
		n.Status, n.Reason, n.SkipKind = Skipped, b.repoPaths(se.reason), se.kind
		n.MissingSource = se.missing
	case err != nil:
		n.Status, n.Reason = Failed, b.repoPaths(err.Error())
	default:
		n.Status, n.Objects = Built, objs
	}
	b.opts.progress(n, Finished, n.Duration)
	return nil
}

// conflicting reports whether o, applied by n after prev, is applied
// twice (RG0105).
func conflicting(prev, n *Node, o *manifest.Object) bool {
	return prev != n && o.Key() != n.Key() && !prev.synthetic && !n.synthetic
}

// merge applies a built node's objects to the state and discovers the
// Flux objects among them. It reports whether a child the node had
// produced before (when it is built again) changed and was reset.
func (b *builder) merge(n *Node) (stale bool) {
	if n.index == 0 {
		b.selfFromRoot(n)
	}
	for _, o := range n.Objects {
		if prev := b.state.add(n, o); prev != nil {
			// A Kustomization that applies its own object (kept in its
			// path) is not a conflict, nor is what the cluster directory
			// applies without a sync Kustomization (bootstrap's kubectl
			// apply, which prunes nothing) and a Kustomization then owns.
			if conflicting(prev, n, o) {
				n.duplicates = append(n.duplicates, newDuplicate(o, prev, n))
			}
			continue
		}
		if c := b.discover(o, n); c != nil && c.Parent == n && c.Object != o && !reflect.DeepEqual(c.Object.Body, o.Body) {
			// n was built again (a late source): its child is what the
			// cluster would now hold, and whatever the child built from
			// its old object is stale, down the tree.
			c.Object, c.dependsOn = o, dependsOnOf(o)
			b.resetBuilt(c)
			stale = true
		}
	}
	return stale
}

// resetBuilt makes a finished node and every finished node below it
// pending again.
func (b *builder) resetBuilt(n *Node) {
	if n.Status != Pending {
		n.reset()
	}
	for _, m := range b.nodes {
		if m.Parent == n && m.Status != Pending {
			b.resetBuilt(m)
		}
	}
}

// reset forgets what a build of the node produced.
func (n *Node) reset() {
	n.Status, n.Reason, n.SkipKind, n.Objects, n.Duration, n.MissingSource = Pending, "", "", nil, 0, nil
	n.Dir, n.Unrendered, n.Partial, n.RoutingFiles = "", nil, nil, nil
	n.findings, n.notices, n.clusterSources, n.duplicates, n.mutatedBy = nil, nil, nil, nil, ""
	n.Trace, n.Reused, n.inputs = nil, false, ""
}

// restate rebuilds the cluster state from the finished nodes, in
// discovery order, after some were reset: objects a reset node applied are
// no longer in the cluster, and an object it shared with a later node
// belongs to that one now.
func (b *builder) restate() {
	b.state = newState()
	if a := b.entryApplied; a != nil {
		for _, o := range a.Objects {
			b.state.add(a, o)
		}
	}
	for _, n := range b.nodes {
		if n.Status == Pending {
			continue
		}
		n.duplicates = nil
		for _, o := range n.Objects {
			if prev := b.state.add(n, o); prev != nil && conflicting(prev, n, o) {
				n.duplicates = append(n.duplicates, newDuplicate(o, prev, n))
			}
		}
	}
}
