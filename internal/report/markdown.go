package report

import (
	"io"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/markdown"
)

// MaxMarkdown is the most bytes the markdown report takes: a GitHub job
// summary or comment (65,536 characters), a GitLab note (1,000,000), with
// headroom for what a CI script adds around it.
const MaxMarkdown = 60000

// markdownReport writes a job summary: a heading with the counts, then one
// table per severity (errors, warnings, infos) of code, place, object and
// message. Repository text is escaped (markdown.Text: no markup, HTML,
// mention or link) and shortened; over MaxMarkdown, the tables show fewer
// rows and shorter cells, infos first, each saying how many rows it left
// out.
type markdownReport struct {
	w  io.Writer
	by [3][][]string // error, warning, info rows
	n  Summary
}

var _ = format(Format{Name: "markdown", Syntax: SyntaxMarkdown, New: newMarkdown,
	Doc: "a job summary (GitHub's `$GITHUB_STEP_SUMMARY`, a GitLab note) under GitHub's size limit"})

func newMarkdown(w io.Writer, _ Options) Writer { return &markdownReport{w: w} }

func (m *markdownReport) Write(f analysis.Finding) error {
	i := 2
	switch f.Severity {
	case analysis.SeverityError:
		i = 0
	case analysis.SeverityWarning:
		i = 1
	}
	m.by[i] = append(m.by[i], []string{f.Code, f.Source.String(), f.Subject(), f.Message})
	m.n.add(f)
	return nil
}

func (m *markdownReport) Flush() error {
	head := "### routeguard: " + markdown.Text(m.n.String()) + "\n"
	if m.n == (Summary{}) {
		head = "### routeguard: no findings\n"
	}
	rest := "`-o json` and `-o sarif` have them all"
	cols := []string{"code", "where", "object", "finding"}
	doc := markdown.Document{Budget: MaxMarkdown, Head: head, Sections: []markdown.Section{
		markdown.Table{Title: "Errors", Columns: cols, Rows: m.by[0], Rest: rest}.Section(),
		markdown.Table{Title: "Warnings", Columns: cols, Rows: m.by[1], Rest: rest}.Section(),
		markdown.Table{Title: "Infos", Columns: cols, Rows: m.by[2], Rest: rest}.Section(),
	}, Foot: func(shortened bool) string {
		if !shortened {
			return ""
		}
		return "\n_Shortened to stay under GitHub's size limit; `-o json` and `-o sarif` have every finding in full._\n"
	}}
	out, err := doc.Render()
	if err != nil {
		return err
	}
	_, err = io.WriteString(m.w, out)
	return err
}
