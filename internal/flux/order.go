package flux

import (
	"container/heap"
	"slices"
)

// order sorts the nodes as Flux would reconcile them: a parent before what
// it applies, a dependency before what depends on it, else in discovery
// order. Nodes in a dependsOn cycle (returned, each cycle in discovery
// order) keep their discovery order among themselves.
func (b *builder) order() ([]*Node, [][]*Node) {
	indeg := map[*Node]int{}
	next := map[*Node][]*Node{}
	for _, n := range b.nodes {
		if n.Parent != nil {
			next[n.Parent] = append(next[n.Parent], n)
			indeg[n]++
		}
		for _, k := range n.dependsOn {
			if d, ok := b.byKey[k]; ok && d != n {
				next[d] = append(next[d], n)
				indeg[n]++
			}
		}
	}
	h := &nodeHeap{}
	for _, n := range b.nodes {
		if indeg[n] == 0 {
			heap.Push(h, n)
		}
	}
	out := make([]*Node, 0, len(b.nodes))
	placed := map[*Node]bool{}
	for len(out) < len(b.nodes) {
		if h.Len() == 0 {
			// A dependsOn cycle holds the rest up: release the first node
			// whose parent is placed.
			for _, n := range b.nodes {
				if !placed[n] && (n.Parent == nil || placed[n.Parent]) {
					indeg[n] = 0
					heap.Push(h, n)
					break
				}
			}
		}
		n := heap.Pop(h).(*Node)
		if placed[n] {
			continue
		}
		placed[n] = true
		out = append(out, n)
		for _, m := range next[n] {
			indeg[m]--
			if indeg[m] == 0 && !placed[m] {
				heap.Push(h, m)
			}
		}
	}
	return out, b.cycles()
}

// cycles finds the strongly connected components of the dependsOn graph
// that are cycles (Tarjan's algorithm, nodes in discovery order).
func (b *builder) cycles() [][]*Node {
	index := map[*Node]int{}
	low := map[*Node]int{}
	onStack := map[*Node]bool{}
	var stack []*Node
	var out [][]*Node
	counter := 0
	var strong func(n *Node)
	strong = func(n *Node) {
		index[n], low[n] = counter, counter
		counter++
		stack = append(stack, n)
		onStack[n] = true
		for _, k := range n.dependsOn {
			d, ok := b.byKey[k]
			if !ok {
				continue
			}
			if _, seen := index[d]; !seen {
				strong(d)
				low[n] = min(low[n], low[d])
			} else if onStack[d] {
				low[n] = min(low[n], index[d])
			}
		}
		if low[n] != index[n] {
			return
		}
		var scc []*Node
		for {
			m := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[m] = false
			scc = append(scc, m)
			if m == n {
				break
			}
		}
		if len(scc) > 1 || selfLoop(b, n) {
			slices.SortFunc(scc, func(a, b *Node) int { return a.index - b.index })
			out = append(out, scc)
		}
	}
	for _, n := range b.nodes {
		if _, seen := index[n]; !seen {
			strong(n)
		}
	}
	slices.SortFunc(out, func(a, c []*Node) int { return a[0].index - c[0].index })
	return out
}

func selfLoop(b *builder, n *Node) bool {
	for _, k := range n.dependsOn {
		if b.byKey[k] == n {
			return true
		}
	}
	return false
}

// nodeHeap pops nodes in discovery order.
type nodeHeap []*Node

func (h nodeHeap) Len() int           { return len(h) }
func (h nodeHeap) Less(i, j int) bool { return h[i].index < h[j].index }
func (h nodeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *nodeHeap) Push(x any)        { *h = append(*h, x.(*Node)) }
func (h *nodeHeap) Pop() any {
	old := *h
	n := old[len(old)-1]
	*h = old[:len(old)-1]
	return n
}
