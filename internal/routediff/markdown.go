package routediff

import (
	"fmt"
	"io"
	"strings"

	"github.com/routeguard/routeguard/internal/markdown"
	"github.com/routeguard/routeguard/internal/printable"
	"github.com/routeguard/routeguard/internal/routemap"
)

// Marker starts every Markdown report: the GitHub Action and the GitLab
// template find their earlier comment by it and update it.
const Marker = "<!-- routeguard-diff -->"

// MaxMarkdown is the largest Markdown report, in bytes: GitHub refuses
// comments over 65,536 characters (markdown.GitHubLimit), GitLab notes over
// 1,000,000; the rest is headroom for what the CI scripts add.
const MaxMarkdown = 60000

// maxMermaid caps the route map in the comment; a larger one is left out
// with a note.
const maxMermaid = 20000

var mdSigns = map[string]string{routemap.Added: "🟢 added", routemap.Removed: "🔴 removed", routemap.Changed: "🟡 changed", notBuiltChange: "⚠️ not built"}

// WriteMarkdown writes the result as a pull request comment (GitHub and
// GitLab Markdown): a summary, the parts that were not compared, one table
// per section, and a Mermaid map of what changed, in at most MaxMarkdown
// bytes (markdown.Document): when the whole is larger, the map is left out
// first, then the tables and the list show fewer rows and shorter cells,
// the least important first (other objects, findings fixed, ..., routes,
// findings introduced, what was not compared), each saying how many rows
// it left out, down to a heading with a count. Repository text is escaped
// (markdown.Text: no markup, HTML, mention or link can come from it) and
// each cell shortened with a count of what it left out.
func (r *Result) WriteMarkdown(w io.Writer) error {
	doc := r.markdownDocument()
	if r.Review == ReviewManifests {
		doc = markdown.Document{Budget: MaxMarkdown, Head: r.manifestsHead(), Sections: r.Manifests.MarkdownSections(manifestRest), Foot: shortenedFoot}
	} else if r.Manifests != nil {
		// The manifest diff goes after the routing review and is
		// shortened first (sections not in Priority are lowered first).
		doc.Sections = append(doc.Sections, r.Manifests.MarkdownSections(manifestRest)...)
	}
	out, err := doc.Render()
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, out)
	return err
}

// Revision names and paths come from the command line, and a branch name
// from whoever opened the pull request: the head shortens them too.
const (
	maxRevChars   = 100
	maxPathsChars = 300
)

func (r *Result) markdownDocument() markdown.Document {
	var head strings.Builder
	head.WriteString(Marker + "\n### routeguard: routing review\n\n")
	fmt.Fprintf(&head, "**base** %s → **head** %s · paths: %s\n\n", mdCode(revString(r.Base)), mdCode(revString(r.Head)),
		markdown.Code(printable.Cut(strings.Join(r.Paths, " "), maxPathsChars)))
	fmt.Fprintf(&head, "**%s**\n\n", markdown.Text(r.Summary()))
	if r.Apps != nil {
		fmt.Fprintf(&head, "%s · ", markdown.Text(r.Apps.String()))
	}
	fmt.Fprintf(&head, "routing objects checked: %d at base, %d at head\n", r.RoutingObjects.Base, r.RoutingObjects.Head)
	notCompared := markdown.List{
		Intro:  fmt.Sprintf("\n> ⚠️ %s part(s) could be built at neither revision and were not compared:\n", printable.Count(len(r.NotCompared))),
		Prefix: "> - ",
		Items:  r.NotCompared,
		More: func(n int) string {
			return fmt.Sprintf("> _… and %s more not compared (stderr of the run has them all)._\n", printable.Count(n))
		},
	}
	sections := []markdown.Section{notCompared.Section()}
	rest := "the text and JSON output (`routeguard diff -o json`) have them all"
	for _, s := range r.sections() {
		rows := make([][]string, len(s.rows))
		for i, row := range s.rows {
			rows[i] = row[1:]
		}
		t := markdown.Table{Title: s.title, Columns: s.columns, Rows: rows, Rest: rest,
			Lead: func(i int) string { return mdSigns[s.rows[i][0]] }}
		sections = append(sections, t.Section())
	}
	sections = append(sections, r.mapSection())
	return markdown.Document{
		Budget:   MaxMarkdown,
		Head:     head.String(),
		Sections: sections,
		Priority: mdPriority(r.sections()),
		Foot:     shortenedFoot,
	}
}

// shortenedFoot ends a comment that was shortened.
func shortenedFoot(shortened bool) string {
	if !shortened {
		return ""
	}
	return "\n_This review was shortened to stay under GitHub's comment limit; `routeguard diff -o json` has all of it._\n"
}

// mdOrder are the tables by title, the last the comment shortens first:
// what could not be compared, then what the change breaks, then what it
// changes; the route map (a picture of the tables) goes before any of them.
var mdOrder = []string{
	notBuiltTitle,
	"Findings introduced",
	sharedTitle,
	"Routes",
	"Attachments",
	"Listeners, Ingress classes and Istio gateways",
	"TLS hosts",
	"ReferenceGrants",
	"Findings gone with their removed objects (not fixed)",
	"Findings fixed",
	"Other objects changed",
}

// mdPriority is the Document's Priority for the sections markdownDocument
// writes: the not-compared list (0), the tables (1..n) in mdOrder, and the
// map (n+1) last.
func mdPriority(tables []section) []int {
	prio := []int{0}
	for _, title := range mdOrder {
		for i, s := range tables {
			if s.title == title {
				prio = append(prio, i+1)
			}
		}
	}
	return append(prio, len(tables)+1)
}

// mapSection is the Mermaid map of the change, or a note saying why it is
// not in the comment.
func (r *Result) mapSection() markdown.Section {
	if !r.RoutingChanged() {
		return markdown.Fixed("")
	}
	g := routemap.NewGraph(r.BaseMap, r.HeadMap).Changed()
	var mm string
	if len(g.Edges) <= routemap.MermaidMaxEdges {
		mm = routemap.Mermaid(g)
	}
	if mm == "" || len(mm) > maxMermaid {
		return markdown.Fixed(fmt.Sprintf("\n_The route map of this change has %s boxes and %s arrows, too many for a comment; `routeguard diff --svg map.svg` draws it._\n",
			printable.Count(len(g.Nodes)), printable.Count(len(g.Edges))))
	}
	return markdown.Optional(
		"\n<details open><summary>Route map of the change (green added, red removed, amber weight changed)</summary>\n\n```mermaid\n"+mm+"```\n\n</details>\n",
		"\n_The route map is left out to keep this comment under GitHub's size limit; `routeguard diff --svg map.svg` draws it._\n")
}

// mdCode is a revision name in an HTML code element, shortened.
func mdCode(s string) string { return markdown.Code(printable.Cut(s, maxRevChars)) }
