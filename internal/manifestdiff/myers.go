package manifestdiff

// Line diff: Myers' greedy algorithm (An O(ND) Difference Algorithm and
// Its Variations, 1986) over interned lines, after the common prefix and
// suffix are taken off. Its cost is bounded: it keeps the furthest-
// reaching paths of every edit distance d up to maxEdits (O(maxEdits²)
// integers). Two sides further apart than that (a chart's CRD with
// changes all over it) are split at their unique common lines, as
// patience diff does, and each part diffed again; a part without such a
// line is written as removed, then added: still a correct diff, only not
// always the shortest. The result depends on nothing but the input.

// maxEdits bounds the edit distance searched for (see above): at most
// 1000² int32 (4 MB) of paths for one object.
const maxEdits = 1000

// op is one line of an edit script: ' ' kept, '-' removed (a line of the
// base), '+' added (a line of the head), with its place on each side: the
// index of its line, or on the side it is not a line of, how many of that
// side's lines come before it.
type op struct {
	kind byte
	a, b int
}

// diffLines returns the edit script turning a into b: every line of both,
// in order, kept, removed or added.
func diffLines(a, b []string) []op {
	ids := map[string]int32{}
	intern := func(lines []string) []int32 {
		out := make([]int32, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	return placed(removalsFirst(diffRange(intern(a), intern(b), 0)))
}

// maxDepth bounds the patience splits of diffRange.
const maxDepth = 16

// diffRange is the script of x to y: the common start and end kept, the
// middle by Myers, or when that is over maxEdits, split at the lines
// that occur once on each side and in the same order (patience diff's
// anchors) and each part diffed again; a part with no anchor is written
// as removed, then added.
func diffRange(x, y []int32, depth int) []op {
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	script := make([]op, 0, len(x)+len(y)-pre-suf)
	for range pre {
		script = append(script, op{kind: ' '})
	}
	mx, my := x[pre:len(x)-suf], y[pre:len(y)-suf]
	if mid := myers(mx, my); mid != nil {
		script = append(script, mid...)
	} else {
		script = append(script, patience(mx, my, depth)...)
	}
	for range suf {
		script = append(script, op{kind: ' '})
	}
	return script
}

// patience splits x and y at their anchors (see diffRange).
func patience(x, y []int32, depth int) []op {
	var anchors [][2]int
	if depth < maxDepth {
		anchors = uniqueCommon(x, y)
	}
	if len(anchors) == 0 {
		out := make([]op, 0, len(x)+len(y))
		for range x {
			out = append(out, op{kind: '-'})
		}
		for range y {
			out = append(out, op{kind: '+'})
		}
		return out
	}
	var out []op
	pi, pj := 0, 0
	for _, a := range anchors {
		out = append(out, diffRange(x[pi:a[0]], y[pj:a[1]], depth+1)...)
		out = append(out, op{kind: ' '})
		pi, pj = a[0]+1, a[1]+1
	}
	return append(out, diffRange(x[pi:], y[pj:], depth+1)...)
}

// uniqueCommon returns the lines that occur exactly once in x and once in
// y, as (index in x, index in y), the longest run of them increasing on
// both sides (patience sorting: O(n log n)).
func uniqueCommon(x, y []int32) [][2]int {
	type seen struct{ nx, ny, ix, iy int }
	count := map[int32]*seen{}
	for i, v := range x {
		c := count[v]
		if c == nil {
			c = &seen{}
			count[v] = c
		}
		c.nx++
		c.ix = i
	}
	for j, v := range y {
		if c := count[v]; c != nil {
			c.ny++
			c.iy = j
		}
	}
	var pairs [][2]int // in x order
	for i, v := range x {
		if c := count[v]; c.nx == 1 && c.ny == 1 {
			pairs = append(pairs, [2]int{i, c.iy})
		}
	}
	// Longest increasing subsequence of the y indexes.
	var tails []int // tails[k]: index in pairs of the smallest tail of a run of k+1
	prev := make([]int, len(pairs))
	for p, pr := range pairs {
		lo, hi := 0, len(tails)
		for lo < hi {
			m := (lo + hi) / 2
			if pairs[tails[m]][1] < pr[1] {
				lo = m + 1
			} else {
				hi = m
			}
		}
		prev[p] = -1
		if lo > 0 {
			prev[p] = tails[lo-1]
		}
		if lo == len(tails) {
			tails = append(tails, p)
		} else {
			tails[lo] = p
		}
	}
	if len(tails) == 0 {
		return nil
	}
	out := make([][2]int, len(tails))
	for k, p := len(tails)-1, tails[len(tails)-1]; k >= 0; k, p = k-1, prev[p] {
		out[k] = pairs[p]
	}
	return out
}

// placed sets every op's place on both sides (see op).
func placed(s []op) []op {
	ai, bi := 0, 0
	for i := range s {
		s[i].a, s[i].b = ai, bi
		switch s[i].kind {
		case ' ':
			ai++
			bi++
		case '-':
			ai++
		case '+':
			bi++
		}
	}
	return s
}

// myers is the shortest edit script of a to b (the ops' kinds; placed
// numbers them), or nil when it has more than maxEdits edits.
func myers(a, b []int32) []op {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		out := make([]op, 0, n+m)
		for i := range n {
			out = append(out, op{'-', i, -1})
		}
		for j := range m {
			out = append(out, op{'+', -1, j})
		}
		return out
	}
	limit := min(n+m, maxEdits)
	off := limit + 1
	v := make([]int32, 2*limit+3)
	var trace [][]int32 // trace[d]: v[-d..d] before step d
	for d := 0; d <= limit; d++ {
		snap := make([]int32, 2*d+1)
		copy(snap, v[off-d:off+d+1])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = int(v[off+k+1])
			} else {
				x = int(v[off+k-1]) + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = int32(x)
			if x >= n && y >= m {
				return backtrack(trace, n, m)
			}
		}
	}
	return nil
}

// backtrack walks the saved paths from (n, m) back to (0, 0).
func backtrack(trace [][]int32, n, m int) []op {
	var rev []op
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		snap := trace[d]
		at := func(k int) int { return int(snap[k+d]) }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px, py := 0, 0
		if d > 0 {
			px = at(pk)
			py = px - pk
		}
		for x > px && y > py {
			x--
			y--
			rev = append(rev, op{' ', x, y})
		}
		if d > 0 {
			if x == px {
				rev = append(rev, op{'+', -1, py})
			} else {
				rev = append(rev, op{'-', px, -1})
			}
		}
		x, y = px, py
	}
	out := make([]op, len(rev))
	for i, o := range rev {
		out[len(rev)-1-i] = o
	}
	return out
}

// removalsFirst orders each run of changed lines as removals, then
// additions (git's order; either is a correct script).
func removalsFirst(s []op) []op {
	out := make([]op, 0, len(s))
	for i := 0; i < len(s); {
		if s[i].kind == ' ' {
			out = append(out, s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && s[j].kind != ' ' {
			j++
		}
		for _, o := range s[i:j] {
			if o.kind == '-' {
				out = append(out, o)
			}
		}
		for _, o := range s[i:j] {
			if o.kind == '+' {
				out = append(out, o)
			}
		}
		i = j
	}
	return out
}
