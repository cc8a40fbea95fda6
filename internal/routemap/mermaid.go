package routemap

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/routeguard/routeguard/internal/printable"
)

// Mermaid writes g as a Mermaid flowchart (GitHub and GitLab render it in
// Markdown): added boxes and arrows green, removed red and dashed, changed
// weights labelled "old → new". Arrows past MermaidMaxEdges are left out
// and a box says how many. Every label is untrusted repository text:
// all but letters, digits and a few safe signs are written as Mermaid
// entity codes, so no label can end the block, inject markup or links.
func Mermaid(g *Graph) string {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	b.WriteString("  classDef added fill:#dafbe1,stroke:#1a7f37,stroke-width:2px,color:#1a7f37\n")
	b.WriteString("  classDef removed fill:#ffebe9,stroke:#cf222e,stroke-width:2px,stroke-dasharray:5 3,color:#cf222e\n")
	for _, n := range g.Nodes {
		shape := `["%s"]`
		switch n.Column {
		case 0:
			shape = `[/"%s"/]`
		case 2:
			shape = `[("%s")]`
		}
		label := mermaidText(n.Label)
		if label == "" {
			label = " " // Mermaid refuses an empty quoted label
		}
		fmt.Fprintf(&b, "  %s"+shape, n.ID, label)
		if n.Status != "" {
			b.WriteString(":::" + n.Status)
		}
		b.WriteString("\n")
	}
	for i, e := range g.Edges {
		if i == MermaidMaxEdges {
			fmt.Fprintf(&b, "  more[\"%d more arrows: Mermaid draws at most %d; routeguard map -o svg draws them all\"]\n",
				len(g.Edges)-i, MermaidMaxEdges)
			break
		}
		l := e.Label
		arrow := "-->"
		switch e.Status {
		case Changed:
			l = e.Old + " → " + e.Label
		case Removed:
			arrow = "-.->"
		}
		if l == "" {
			// Mermaid refuses an empty quoted label (|""|): a bare arrow.
			fmt.Fprintf(&b, "  %s %s %s\n", e.From, arrow, e.To)
		} else {
			fmt.Fprintf(&b, "  %s %s|\"%s\"| %s\n", e.From, arrow, mermaidText(l), e.To)
		}
		switch e.Status {
		case Added:
			fmt.Fprintf(&b, "  linkStyle %d stroke:#1a7f37,stroke-width:2px\n", i)
		case Removed:
			fmt.Fprintf(&b, "  linkStyle %d stroke:#cf222e,stroke-width:2px\n", i)
		case Changed:
			fmt.Fprintf(&b, "  linkStyle %d stroke:#bf8700,stroke-width:3px\n", i)
		}
	}
	return b.String()
}

// MermaidMaxEdges is the most arrows Mermaid draws: with more, its parser
// fails ("Edge limit exceeded"), and maxEdges is a setting a diagram cannot
// raise (GitHub and GitLab keep the default). Mermaid writes no more.
const MermaidMaxEdges = 500

// maxMermaidLabel is the longest label, in characters: a longer one is cut
// with a count of the rest (printable.Cut).
const maxMermaidLabel = 300

// mermaidText escapes s for a quoted Mermaid label, shortened.
func mermaidText(s string) string {
	s = printable.Cut(s, maxMermaidLabel)
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9',
			r == ' ', r == '.', r == '/', r == ':', r == '-', r == ',', r == '(', r == ')', r == '=', r == '+':
			b.WriteRune(r)
		case r == '→':
			b.WriteString("#8594;")
		default:
			b.WriteString("#" + strconv.Itoa(int(r)) + ";")
		}
	}
	return b.String()
}
