package manifestdiff

// Line diff: Myers' greedy algorithm (An O(ND) Difference Algorithm and
// Its Variations, 1986) over interned lines, after the common prefix and
// suffix are taken off. Its cost is bounded: it keeps the furthest-
// reaching paths of every edit distance d up to maxEdits (O(maxEdits²)
// integers) and, when the two sides are further apart than that, the
// middle is written as removed then added — still a correct diff, only
// not the shortest. The result depends on nothing but the input.

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
	x, y := intern(a), intern(b)
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	script := make([]op, 0, len(x)+len(y)-pre-suf)
	for i := range pre {
		script = append(script, op{' ', i, i})
	}
	mid := myers(x[pre:len(x)-suf], y[pre:len(y)-suf])
	if mid == nil { // too far apart: removed, then added
		for i := pre; i < len(x)-suf; i++ {
			script = append(script, op{'-', i, -1})
		}
		for j := pre; j < len(y)-suf; j++ {
			script = append(script, op{'+', -1, j})
		}
	} else {
		script = append(script, mid...)
	}
	for i := range suf {
		script = append(script, op{' ', len(x) - suf + i, len(y) - suf + i})
	}
	return placed(removalsFirst(script))
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

// myers is the shortest edit script of a to b, or nil when it has more
// than maxEdits edits (and both are non-empty).
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
