package routemap

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Graph is the route map as a layered graph: parents (column 0) -> routes
// (column 1) -> backends (column 2). Built from two maps, it carries the
// difference: what only head has is added, what only base has is removed.
type Graph struct {
	Nodes []Node
	Edges []Edge
}

// Node is one box of the map.
type Node struct {
	ID     string
	Label  string
	Column int
	Status string // "", Added, Removed
}

// Edge is one arrow; Label is the hosts (parent -> route) or the weight
// (route -> backend), Old the base's label when it changed.
type Edge struct {
	From, To   string
	Label, Old string
	Status     string // "", Added, Removed, Changed
}

type edgeAcc struct {
	from, to string
	labels   []string
}

// NewGraph draws head, marking the difference from base; NewGraph(m, m)
// draws one revision.
func NewGraph(base, head *Map) *Graph {
	bn, be := graphParts(base)
	hn, he := graphParts(head)
	g := &Graph{}
	ids := map[string]string{}
	id := func(key string) string {
		if ids[key] == "" {
			ids[key] = "n" + strconv.Itoa(len(ids))
		}
		return ids[key]
	}
	keys := map[string]bool{}
	for k := range bn {
		keys[k] = true
	}
	for k := range hn {
		keys[k] = true
	}
	sorted := slices.Sorted(mapsKeys(keys))
	slices.SortStableFunc(sorted, func(a, b string) int { return cmp.Compare(colOf(a), colOf(b)) })
	for _, k := range sorted {
		n := Node{ID: id(k), Label: k[2:], Column: colOf(k)}
		_, inB := bn[k]
		_, inH := hn[k]
		switch {
		case !inB:
			n.Status = Added
		case !inH:
			n.Status = Removed
		}
		g.Nodes = append(g.Nodes, n)
	}
	ekeys := map[string]bool{}
	for k := range be {
		ekeys[k] = true
	}
	for k := range he {
		ekeys[k] = true
	}
	for _, k := range slices.Sorted(mapsKeys(ekeys)) {
		b, inB := be[k]
		h, inH := he[k]
		var e Edge
		switch {
		case !inB:
			e = Edge{From: id(h.from), To: id(h.to), Label: label(h), Status: Added}
		case !inH:
			e = Edge{From: id(b.from), To: id(b.to), Label: label(b), Status: Removed}
		default:
			e = Edge{From: id(h.from), To: id(h.to), Label: label(h)}
			if label(b) != e.Label {
				e.Status, e.Old = Changed, label(b)
			}
		}
		g.Edges = append(g.Edges, e)
	}
	return g
}

func colOf(key string) int { return int(key[0] - '0') }

func label(e *edgeAcc) string {
	ls := slices.Compact(slices.Sorted(slices.Values(e.labels)))
	if len(ls) > 3 {
		ls = append(ls[:2], "+"+strconv.Itoa(len(ls)-2)+" more")
	}
	return strings.Join(ls, ", ")
}

// graphParts collects the nodes (keyed "<column>:<label>") and edges of m.
func graphParts(m *Map) (map[string]bool, map[string]*edgeAcc) {
	nodes := map[string]bool{}
	edges := map[string]*edgeAcc{}
	add := func(from, to, l string) {
		k := from + "\x00" + to
		if edges[k] == nil {
			edges[k] = &edgeAcc{from: from, to: to}
		}
		edges[k].labels = append(edges[k].labels, l)
	}
	for _, p := range m.Parents {
		nodes["0:"+p.Name] = true
	}
	for _, e := range m.Entries {
		p, r := "0:"+e.Parent, "1:"+e.Route
		nodes[p], nodes[r] = true, true
		add(p, r, e.Host)
		for _, b := range e.Backends {
			bk := "2:" + b.Name
			nodes[bk] = true
			add(r, bk, "w "+strconv.FormatInt(b.Weight, 10))
		}
	}
	return nodes, edges
}

func mapsKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// Changed returns the part of g that changed: added and removed boxes,
// changed arrows and the boxes at their ends (a pull request comment shows
// this, not the whole map).
func (g *Graph) Changed() *Graph {
	keep := map[string]bool{}
	for _, n := range g.Nodes {
		if n.Status != "" {
			keep[n.ID] = true
		}
	}
	out := &Graph{}
	for _, e := range g.Edges {
		if e.Status != "" {
			out.Edges = append(out.Edges, e)
			keep[e.From], keep[e.To] = true, true
		}
	}
	for _, n := range g.Nodes {
		if keep[n.ID] {
			out.Nodes = append(out.Nodes, n)
		}
	}
	return out
}
