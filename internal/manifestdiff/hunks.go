package manifestdiff

import "fmt"

// contextLines is how many kept lines a hunk shows around its changes
// (git's and diff -u's default).
const contextLines = 3

// Hunk is one part of a unified diff: the lines it covers at base and at
// head (1-based start; 0 with no lines, as diff -u writes an empty side)
// and its lines, each starting with ' ' (kept), '-' (removed) or '+'
// (added).
type Hunk struct {
	BaseStart int      `json:"baseStart"`
	BaseLines int      `json:"baseLines"`
	HeadStart int      `json:"headStart"`
	HeadLines int      `json:"headLines"`
	Lines     []string `json:"lines"`
}

// Header is the hunk's "@@ -1,4 +1,5 @@" line.
func (h Hunk) Header() string {
	return fmt.Sprintf("@@ -%s +%s @@", span(h.BaseStart, h.BaseLines), span(h.HeadStart, h.HeadLines))
}

func span(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// hunks groups the script's changes with contextLines of kept lines
// around them; changes closer than twice that share a hunk.
func hunks(a, b []string, script []op) []Hunk {
	var out []Hunk
	for i := 0; i < len(script); {
		if script[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-contextLines)
		end := i // one past the last change of the hunk
		for j := i; j < len(script); j++ {
			if script[j].kind != ' ' {
				end = j + 1
				continue
			}
			if j-end >= 2*contextLines {
				break
			}
		}
		stop := min(len(script), end+contextLines)
		out = append(out, hunkOf(a, b, script[start:stop]))
		i = stop
	}
	return out
}

func hunkOf(a, b []string, s []op) Hunk {
	var h Hunk
	for _, o := range s {
		switch o.kind {
		case ' ':
			h.BaseLines++
			h.HeadLines++
			h.Lines = append(h.Lines, " "+a[o.a])
		case '-':
			h.BaseLines++
			h.Lines = append(h.Lines, "-"+a[o.a])
		case '+':
			h.HeadLines++
			h.Lines = append(h.Lines, "+"+b[o.b])
		}
	}
	// diff -u numbers a side's first line from 1, and a side without
	// lines in the hunk by the line before it.
	h.BaseStart, h.HeadStart = s[0].a, s[0].b
	if h.BaseLines > 0 {
		h.BaseStart++
	}
	if h.HeadLines > 0 {
		h.HeadStart++
	}
	return h
}
