package report

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
)

// github writes GitHub Actions workflow commands (::error, ::warning,
// ::notice), one line per finding, which the runner turns into annotations
// on the pull request's files: the annotations of a private repository
// without GitHub Code Security, where a SARIF upload is refused.
//
// GitHub shows at most 10 error and 10 warning annotations of a step (and
// 50 of a job), so findings are written errors first, then warnings, then
// infos, each group in the runner's order, and when a group is past what
// GitHub shows, a final notice says how many there are in all.
//
// Everything a finding holds comes from a repository. The runner reads a
// command only at the start of a line; newlines and carriage returns are
// percent-encoded as GitHub's toolkit does (escapeData, escapeProperty), so
// a message can never start a line of its own, and other control
// characters are written as \xNN.
type github struct {
	w        io.Writer
	findings []analysis.Finding
}

var _ = format(Format{Name: "github", Syntax: SyntaxWorkflowCommands, New: newGitHub,
	Doc: "GitHub Actions workflow commands: annotations for a repository where SARIF upload is not available"})

func newGitHub(w io.Writer, _ Options) Writer { return &github{w: w} }

func (g *github) Write(f analysis.Finding) error {
	g.findings = append(g.findings, f)
	return nil
}

// gitHubShown is how many annotations of one level GitHub shows per step.
const gitHubShown = 10

func githubLevel(s analysis.Severity) string {
	switch s {
	case analysis.SeverityError:
		return "error"
	case analysis.SeverityWarning:
		return "warning"
	}
	return "notice"
}

func (g *github) Flush() error {
	fs := slices.Clone(g.findings)
	slices.SortStableFunc(fs, func(a, b analysis.Finding) int { return int(b.Severity) - int(a.Severity) })
	var b strings.Builder
	count := map[string]int{}
	for _, f := range fs {
		level := githubLevel(f.Severity)
		count[level]++
		props := []string{}
		if f.Source.File != "" {
			props = append(props, "file="+githubProperty(filepath.ToSlash(f.Source.File)))
			if f.Source.Line > 0 {
				props = append(props, fmt.Sprintf("line=%d", f.Source.Line))
			}
		}
		title := f.Code
		if c, ok := analysis.LookupCode(f.Code); ok {
			title += " " + c.Title
		}
		props = append(props, "title="+githubProperty(title))
		fmt.Fprintf(&b, "::%s %s::%s\n", level, strings.Join(props, ","), githubData(f.Subject()+": "+f.Message))
	}
	if count["error"] > gitHubShown || count["warning"] > gitHubShown {
		fmt.Fprintf(&b, "::notice title=routeguard::%s\n", githubData(fmt.Sprintf(
			"%d errors, %d warnings and %d infos in all; GitHub shows %d annotations of each level per step, errors first: the job log and the report list every finding",
			count["error"], count["warning"], count["notice"], gitHubShown)))
	}
	_, err := io.WriteString(g.w, b.String())
	return err
}

// githubData escapes a command's message as GitHub's toolkit does
// (escapeData), and writes control characters the runner would pass on
// as \xNN.
func githubData(s string) string {
	return githubEscape(s, false)
}

// githubProperty escapes a command's property value (escapeProperty: also
// ':' and ',', which end a value).
func githubProperty(s string) string {
	return githubEscape(s, true)
}

func githubEscape(s string, property bool) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '%':
			b.WriteString("%25")
		case r == '\r':
			b.WriteString("%0D")
		case r == '\n':
			b.WriteString("%0A")
		case property && r == ':':
			b.WriteString("%3A")
		case property && r == ',':
			b.WriteString("%2C")
		case r < 0x20 && r != '\t', r == 0x7f, r >= 0x80 && r < 0xa0, r == '\u2028', r == '\u2029':
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
