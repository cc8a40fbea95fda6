package routediff

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/routeguard/routeguard/internal/routemap"
)

// Marker starts every Markdown report: the GitHub Action and the GitLab
// template find their earlier comment by it and update it.
const Marker = "<!-- routeguard-diff -->"

// MaxMarkdown is the largest Markdown report: GitHub refuses comments over
// 65536 characters; the rest is headroom for the CI wrapper.
const MaxMarkdown = 60000

// maxMermaid caps the route map in the comment; a larger one is left out
// with a note.
const maxMermaid = 20000

var mdSigns = map[string]string{routemap.Added: "🟢 added", routemap.Removed: "🔴 removed", routemap.Changed: "🟡 changed", notBuiltChange: "⚠️ not built"}

// WriteMarkdown writes the result as a pull request comment (GitHub and
// GitLab Markdown): a summary, one table per section, and a Mermaid map
// of what changed. When that exceeds MaxMarkdown, each table keeps its
// first rows and says how many it left out, the fewer the larger the
// result. Repository text is written as character references (no markup,
// links, mentions or HTML can come from the repository).
func (r *Result) WriteMarkdown(w io.Writer) error {
	var out string
	for _, limit := range []int{math.MaxInt, 200, 50, 20, 5, 0} {
		out = r.markdown(limit, true)
		if len(out) > MaxMarkdown {
			out = r.markdown(limit, false)
		}
		if len(out) <= MaxMarkdown {
			break
		}
	}
	_, err := io.WriteString(w, out)
	return err
}

func (r *Result) markdown(limit int, withMap bool) string {
	var b strings.Builder
	b.WriteString(Marker + "\n### routeguard: routing review\n\n")
	fmt.Fprintf(&b, "**base** %s → **head** %s · paths: %s\n\n", mdCode(revString(r.Base)), mdCode(revString(r.Head)), mdCode(strings.Join(r.Paths, " ")))
	fmt.Fprintf(&b, "**%s**\n\nrouting objects checked: %d at base, %d at head\n", mdText(r.Summary()), r.RoutingObjects.Base, r.RoutingObjects.Head)
	if n := len(r.NotCompared); n > 0 {
		fmt.Fprintf(&b, "\n> ⚠️ %d part(s) could be built at neither revision and were not compared:\n", n)
		for i, t := range r.NotCompared {
			if i == max(limit, 5) {
				fmt.Fprintf(&b, "> _… and %d more (stderr of the run has them all)._\n", n-i)
				break
			}
			b.WriteString("> - " + mdText(t) + "\n")
		}
	}
	for _, s := range r.sections() {
		if len(s.rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n#### %s (%d)\n\n|", s.title, len(s.rows))
		for _, c := range s.columns {
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n|" + strings.Repeat("---|", len(s.columns)) + "\n")
		for i, row := range s.rows {
			if i == limit {
				fmt.Fprintf(&b, "\n_… and %d more rows; the text and JSON output (`routeguard diff -o json`) have them all._\n", len(s.rows)-limit)
				break
			}
			b.WriteString("| " + mdSigns[row[0]] + " |")
			for _, c := range row[1:] {
				b.WriteString(" " + mdText(c) + " |")
			}
			b.WriteString("\n")
		}
	}
	if r.RoutingChanged() {
		g := routemap.NewGraph(r.BaseMap, r.HeadMap).Changed()
		mm := routemap.Mermaid(g)
		switch {
		case !withMap:
			b.WriteString("\n_The route map is left out to keep this comment under GitHub's size limit; `routeguard diff --svg map.svg` draws it._\n")
		case len(mm) > maxMermaid || len(g.Edges) > routemap.MermaidMaxEdges:
			fmt.Fprintf(&b, "\n_The route map of this change has %d boxes and %d arrows, too many for a comment; `routeguard diff --svg map.svg` draws it._\n", len(g.Nodes), len(g.Edges))
		default:
			b.WriteString("\n<details open><summary>Route map of the change (green added, red removed, amber weight changed)</summary>\n\n```mermaid\n" + mm + "```\n\n</details>\n")
		}
	}
	return b.String()
}

// mdText writes s as Markdown text: letters, digits, spaces and a few
// signs as they are, everything else as a numeric character reference, so
// that nothing in s is Markdown or HTML syntax (a table pipe, a backtick,
// an @mention, a link, a tag).
func mdText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9',
			r == ' ', r == '.', r == ',', r == '/', r == ':', r == '-', r == '=', r == '→',
			r == '(', r == ')', r == '"', r == '\'', r == ';', r == '?', r == '!', r == '+', r == '%', r == '{', r == '}':
			b.WriteRune(r)
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		default:
			b.WriteString("&#" + strconv.Itoa(int(r)) + ";")
		}
	}
	return b.String()
}

// mdCode is mdText in an HTML code element.
func mdCode(s string) string { return "<code>" + mdText(s) + "</code>" }
