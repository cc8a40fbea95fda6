package flux

import (
	"reflect"
	"sync"

	"github.com/routeguard/routeguard/internal/affected"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Reuse is Options.Reuse of an affected-only review: a node of the build
// takes Head's result (built with TraceNodes) when Head built it, its
// object is the same (as its parent produced it, and from the same
// file), what it reads of the cluster is the same (inputsOf), nothing its
// build observed of the checkout is among Changes, and no node it needs
// (its dependsOn, as head has them) is affected at head: its build read a
// changed path, or its trace cannot vouch for it, or one it needs is
// (routeguard builds no node differently for its dependencies: dependsOn
// orders, and RG0103/RG0104 are found over each whole tree, so this is
// the rule, not needed for the same review). Everything else the
// build does (discovering, ordering, retrying nodes, the cluster state)
// runs as always.
type Reuse struct {
	Head    *Result
	Changes *affected.Changes
	// Affected are the Head nodes the changes affect (Prepare): their
	// trace meets a change, or cannot vouch for their build, or a node
	// they depend on is affected.
	Affected *affected.Result

	once  sync.Once
	byKey map[manifest.Key]*Node
	mu    sync.Mutex
	why   map[manifest.Key]string
}

// NewReuse attributes changes to the nodes of head (built with
// TraceNodes).
func NewReuse(head *Result, changes *affected.Changes) *Reuse {
	r := &Reuse{Head: head, Changes: changes, byKey: map[manifest.Key]*Node{}, why: map[manifest.Key]string{}}
	apps := make([]affected.App, 0, len(head.Nodes))
	for _, n := range head.Nodes {
		r.byKey[n.Key()] = n
		a := affected.App{ID: NodeID(n), Trace: n.Trace} // no trace: affected
		for _, d := range n.dependsOn {
			a.Needs = append(a.Needs, affected.ID{Kind: d.Kind, Namespace: d.Namespace, Name: d.Name})
		}
		apps = append(apps, a)
	}
	// The same nodes on both sides: what differs at the other revision
	// (objects, inputs) is judged when each node builds there.
	r.Affected = affected.Compute(affected.Options{Changes: changes, Head: apps, Base: apps})
	return r
}

// NodeID is a node's identity across revisions.
func NodeID(n *Node) affected.ID {
	return affected.ID{Kind: n.Object.Kind, Namespace: n.Object.Namespace, Name: n.Object.Name}
}

// Why says why the node with key k was built again ("" when it was taken
// from head, or never asked about).
func (r *Reuse) Why(k manifest.Key) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.why[k]
}

// of returns Head's node to take for n (built by b), or nil to build it.
func (r *Reuse) of(n *Node) *Node {
	if r == nil {
		return nil
	}
	h, why := r.byKey[n.Key()], ""
	switch {
	case h == nil:
		why = "not at head"
	case h.Reused:
		why = "reused at head"
	case h.Status != Built:
		why = "not built whole at head"
	case h.Object.Source != n.Object.Source || !reflect.DeepEqual(h.Object.Body, n.Object.Body):
		why = "its object differs"
	case n.inputs == "" || h.inputs != n.inputs:
		why = "what it reads of the cluster differs, or cannot be told"
	case r.Affected.Is(NodeID(h)):
		why = r.Affected.Affected[NodeID(h)]
	}
	r.mu.Lock()
	r.why[n.Key()] = why
	r.mu.Unlock()
	if why != "" {
		return nil
	}
	return h
}
