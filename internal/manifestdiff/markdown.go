package manifestdiff

import (
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/markdown"
	"github.com/routeguard/routeguard/internal/printable"
)

// The levels of an app's section in a comment, fullest first: how many
// diff lines of each object and how many characters of each line; then
// the objects without their diffs; then one line.
var appDetail = []struct{ lines, width int }{{400, 500}, {100, 200}, {20, 120}, {0, 0}, {-1, 0}}

// maxMarkdownApps is how many apps the comment has a section for; the
// rest are counted in one line (a comment can hold no more anyway).
const maxMarkdownApps = 50

// MarkdownSections returns the review as sections of a pull request
// comment (markdown.Document): a heading with the summary, then one
// collapsible <details> per app (the first maxMarkdownApps), each object
// a fenced diff block. Every section can be lowered to fewer and shorter
// lines, then to its objects' names, then to one line, and every level
// says how much it left out. Repository text outside the code blocks is
// escaped (markdown.Text); inside, control characters are (printable.Line)
// and the fence is longer than any run of backticks in the block, so no
// line of it can close it. rest says where the whole review is ("the
// JSON output has it all").
func (r *Result) MarkdownSections(rest string) []markdown.Section {
	head := "\n### Manifest diff\n\n**" + markdown.Text(r.Summary()) + "**\n"
	if f := r.filtersLine(); f != "" {
		head += "\n_" + markdown.Text(f) + "_\n"
	}
	if nc := r.notComparedLine(); nc != "" {
		head += "\n> ⚠️ " + markdown.Cell(nc, 1500) + "\n"
	}
	out := []markdown.Section{markdown.Fixed(head)}
	for i, a := range r.Apps {
		if i == maxMarkdownApps {
			objs := 0
			for _, a := range r.Apps[i:] {
				objs += len(a.Objects)
			}
			out = append(out, markdown.Fixed(fmt.Sprintf("\n_… and %s more apps (%s) changed; %s._\n",
				printable.Count(len(r.Apps)-i), plural(objs, "object"), rest)))
			break
		}
		out = append(out, markdown.Section{Levels: len(appDetail), At: func(level int) string { return appMarkdown(a, level, rest) }})
	}
	return out
}

// appMarkdown is one app's section at a level of appDetail.
func appMarkdown(a AppDiff, level int, rest string) string {
	d := appDetail[level]
	added, removed := 0, 0
	for _, o := range a.Objects {
		added += o.LinesAdded
		removed += o.LinesRemoved
	}
	title := fmt.Sprintf("%s: %s (+%d −%d)", markdown.Code(printable.Cut(a.App.String(), 200)), plural(len(a.Objects), "object"), added, removed)
	if d.lines < 0 {
		return "\n- " + title + " _(left out to keep this comment under the size limit; " + rest + ")_\n"
	}
	var b strings.Builder
	b.WriteString("\n<details><summary>" + title + "</summary>\n\n")
	for _, o := range a.Objects {
		b.WriteString("- " + markdown.Code(printable.Cut(o.objectLine(), 300)) + "\n")
		if d.lines == 0 {
			continue
		}
		if len(o.Hunks) > 0 {
			b.WriteString("\n" + codeBlock(o, d.lines, d.width, rest) + "\n")
		}
	}
	if d.lines == 0 {
		b.WriteString("\n_Diffs left out to keep this comment under the size limit; " + rest + "._\n")
	}
	b.WriteString("\n</details>\n")
	return b.String()
}

// codeBlock is the object's hunks as a fenced diff block of at most
// lines lines of width characters, saying what it cut.
func codeBlock(o ObjectDiff, lines, width int, rest string) string {
	var body []string
	total := 0
	for _, h := range o.Hunks {
		total += 1 + len(h.Lines)
	}
	for _, h := range o.Hunks {
		body = append(body, h.Header())
		for _, l := range h.Lines {
			body = append(body, printable.Line(printable.Cut(l, width)))
		}
		if len(body) >= lines {
			break
		}
	}
	if len(body) > lines {
		body = body[:lines]
	}
	fence := strings.Repeat("`", max(3, longestRun(body, '`')+1))
	var b strings.Builder
	b.WriteString(fence + "diff\n")
	for _, l := range body {
		b.WriteString(l + "\n")
	}
	b.WriteString(fence + "\n")
	if cut := total - len(body); cut > 0 {
		fmt.Fprintf(&b, "\n_… %s more diff lines of this object; %s._\n", printable.Count(cut), rest)
	}
	return b.String()
}

// longestRun is the longest run of c in any of lines.
func longestRun(lines []string, c byte) int {
	best := 0
	for _, l := range lines {
		run := 0
		for i := 0; i < len(l); i++ {
			if l[i] == c {
				run++
				best = max(best, run)
			} else {
				run = 0
			}
		}
	}
	return best
}

// Markdown is the review alone as a pull request comment under
// head (the marker and title the caller's comment starts with), within
// budget bytes.
func (r *Result) Markdown(head string, budget int, rest string) (string, error) {
	doc := markdown.Document{Budget: budget, Head: head, Sections: r.MarkdownSections(rest),
		Foot: func(shortened bool) string {
			if !shortened {
				return ""
			}
			return "\n_This review was shortened to stay under the comment size limit; " + rest + "._\n"
		}}
	return doc.Render()
}
