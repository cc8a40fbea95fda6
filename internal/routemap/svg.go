package routemap

import (
	"cmp"
	"fmt"
	"html"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// SVG layout constants (pixels); labels are monospace, so their width is
// known without measuring fonts.
const (
	charW    = 7.8
	fontSize = 13
	boxH     = 30
	rowGap   = 16
	colGap   = 170
	margin   = 20
	legendH  = 34
	maxChars = 60
)

var columnTitles = [3]string{"Gateways, listeners, Ingress classes", "Routes", "Backends"}

// SVG writes g as a standalone SVG: three columns (parents, routes,
// backends), rows ordered so that arrows cross little, added boxes and
// arrows green, removed red and dashed, changed weights amber and labelled
// "old → new". Labels are escaped as XML text.
func SVG(w io.Writer, g *Graph, title string) error {
	cols := [3][]Node{}
	for _, n := range g.Nodes {
		cols[n.Column] = append(cols[n.Column], n)
	}
	// Order columns 1 and 2 by the mean row of their predecessors.
	row := map[string]float64{}
	for i, n := range cols[0] {
		row[n.ID] = float64(i)
	}
	for c := 1; c < 3; c++ {
		mean := map[string]float64{}
		for _, n := range cols[c] {
			sum, k := 0.0, 0
			for _, e := range g.Edges {
				if e.To == n.ID {
					if r, ok := row[e.From]; ok {
						sum += r
						k++
					}
				}
			}
			if k > 0 {
				mean[n.ID] = sum / float64(k)
			}
		}
		slices.SortStableFunc(cols[c], func(a, b Node) int { return cmp.Compare(mean[a.ID], mean[b.ID]) })
		for i, n := range cols[c] {
			row[n.ID] = float64(i)
		}
	}
	widths := [3]float64{}
	for c := range cols {
		widths[c] = float64(utf8.RuneCountInString(columnTitles[c]))*charW + 20
		for _, n := range cols[c] {
			widths[c] = max(widths[c], float64(utf8.RuneCountInString(clip(n.Label)))*charW+24)
		}
	}
	// Each gap between columns fits its widest arrow label.
	col := map[string]int{}
	for _, n := range g.Nodes {
		col[n.ID] = n.Column
	}
	gaps := [2]float64{colGap, colGap}
	outDeg, inDeg := map[string]int{}, map[string]int{}
	changed := false
	for _, e := range g.Edges {
		outDeg[e.From]++
		inDeg[e.To]++
		if c := col[e.From]; c < 2 {
			gaps[c] = max(gaps[c], labelWidth(edgeLabel(e))+60)
		}
		changed = changed || e.Status != ""
	}
	for _, n := range g.Nodes {
		changed = changed || n.Status != ""
	}
	x := [3]float64{margin, margin + widths[0] + gaps[0], margin + widths[0] + widths[1] + gaps[0] + gaps[1]}
	rows := max(len(cols[0]), len(cols[1]), len(cols[2]), 1)
	top := float64(margin + legendH + 24)
	height := top + float64(rows)*(boxH+rowGap) + margin
	width := x[2] + widths[2] + margin
	// Centre shorter columns vertically.
	pos := map[string][2]float64{}
	for c := range cols {
		off := (float64(rows-len(cols[c])) * (boxH + rowGap)) / 2
		for i, n := range cols[c] {
			pos[n.ID] = [2]float64{x[c], top + off + float64(i)*(boxH+rowGap)}
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="%d">`+"\n", width, height, width, height, fontSize)
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="context-stroke"/></marker></defs>` + "\n")
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#ffffff"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="15" font-weight="bold" fill="#1f2328">%s</text>`+"\n", margin, margin+12, esc(title))
	if changed {
		legend(&b, margin, margin+legendH-8)
	}
	for c := range cols {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="#59636e" font-weight="bold">%s</text>`+"\n", x[c], top-10, esc(columnTitles[c]))
	}
	var placed [][3]float64 // label centre x, y and width
	for _, e := range g.Edges {
		from, to := pos[e.From], pos[e.To]
		x1, y1 := from[0]+widths[col[e.From]], from[1]+boxH/2
		x2, y2 := to[0], to[1]+boxH/2
		stroke, dash, sw := "#8c959f", "", 1.5
		switch e.Status {
		case Added:
			stroke, sw = "#1a7f37", 2.5
		case Removed:
			stroke, dash, sw = "#cf222e", ` stroke-dasharray="6 4"`, 2.5
		case Changed:
			stroke, sw = "#bf8700", 3
		}
		mx := (x1 + x2) / 2
		fmt.Fprintf(&b, `<path d="M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f" fill="none" stroke="%s" stroke-width="%.1f"%s marker-end="url(#arrow)"/>`+"\n",
			x1, y1, mx, y1, mx, y2, x2-2, y2, stroke, sw, dash)
		l := clip(edgeLabel(e))
		lw := labelWidth(l)
		// A label sits near the end where fewer arrows meet (near the
		// parent when it has one route, near the route when the parent
		// fans out), moved along its arrow when it would cover another.
		ts := []float64{0.3, 0.5, 0.15, 0.65}
		if outDeg[e.From] > inDeg[e.To] {
			ts = []float64{0.7, 0.5, 0.85, 0.35}
		}
		var lx, ly float64
		for _, t := range ts {
			lx, ly = bezier(t, x1, mx, mx, x2), bezier(t, y1, y1, y2, y2)
			lx = min(max(lx, x1+lw/2+8), x2-lw/2-12)
			if !overlaps(placed, lx, ly, lw) {
				break
			}
		}
		placed = append(placed, [3]float64{lx, ly, lw})
		fill := "#ffffff"
		if e.Status == Changed {
			fill = "#fff8c5"
		}
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="16" rx="3" fill="%s" stroke="%s" stroke-width="0.8"/>`+"\n", lx-lw/2, ly-9, lw, fill, stroke)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="11" fill="#1f2328">%s</text>`+"\n", lx, ly+3, esc(l))
	}
	for _, n := range g.Nodes {
		p := pos[n.ID]
		fill, stroke, dash, tc := [3]string{"#ddf4ff", "#f6f8fa", "#fbefff"}[n.Column], "#57606a", "", "#1f2328"
		switch n.Status {
		case Added:
			fill, stroke, tc = "#dafbe1", "#1a7f37", "#116329"
		case Removed:
			fill, stroke, dash, tc = "#ffebe9", "#cf222e", ` stroke-dasharray="6 4"`, "#a40e26"
		}
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%d" rx="6" fill="%s" stroke="%s" stroke-width="1.5"%s/>`+"\n",
			p[0], p[1], widths[n.Column], boxH, fill, stroke, dash)
		label := clip(n.Label)
		if n.Status == Removed {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="%s" text-decoration="line-through">%s</text>`+"\n", p[0]+12, p[1]+boxH/2+4, tc, esc(label))
		} else {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="%s">%s</text>`+"\n", p[0]+12, p[1]+boxH/2+4, tc, esc(label))
		}
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// overlaps reports whether a label at x, y of width w covers a placed one.
func overlaps(placed [][3]float64, x, y, w float64) bool {
	for _, p := range placed {
		if abs(p[1]-y) < 18 && abs(p[0]-x) < (p[2]+w)/2+4 {
			return true
		}
	}
	return false
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

func edgeLabel(e Edge) string {
	if e.Status == Changed {
		return e.Old + " → " + e.Label
	}
	return e.Label
}

// labelWidth is the width of an arrow label's box (11 px monospace).
func labelWidth(l string) float64 {
	return float64(utf8.RuneCountInString(clip(l)))*charW*0.85 + 8
}

// bezier evaluates one coordinate of a cubic Bézier curve at t.
func bezier(t, p0, p1, p2, p3 float64) float64 {
	u := 1 - t
	return u*u*u*p0 + 3*u*u*t*p1 + 3*u*t*t*p2 + t*t*t*p3
}

func legend(b *strings.Builder, x, y int) {
	items := []struct{ label, stroke, fill, dash string }{
		{"added", "#1a7f37", "#dafbe1", ""},
		{"removed", "#cf222e", "#ffebe9", ` stroke-dasharray="6 4"`},
		{"weight changed", "#bf8700", "#fff8c5", ""},
		{"unchanged", "#57606a", "#f6f8fa", ""},
	}
	for _, it := range items {
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="22" height="12" rx="3" fill="%s" stroke="%s" stroke-width="1.5"%s/>`, x, y-10, it.fill, it.stroke, it.dash)
		fmt.Fprintf(b, `<text x="%d" y="%d" font-size="12" fill="#1f2328">%s</text>`+"\n", x+28, y, it.label)
		x += 28 + len(it.label)*8 + 24
	}
}

// clip shortens labels longer than maxChars.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= maxChars {
		return s
	}
	r := []rune(s)
	return string(r[:maxChars-1]) + "…"
}

// esc escapes s as XML text, dropping what XML cannot hold.
func esc(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		if r < 0x20 || r == 0xFFFE || r == 0xFFFF || (r >= 0xD800 && r <= 0xDFFF) {
			return -1
		}
		return r
	}, s)
	return html.EscapeString(s)
}
