package report

import (
	"io"
	"path/filepath"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/printable"
)

// gitlab writes GitLab's code quality report: a JSON array of issues with
// description, check_name, fingerprint, severity and location.
type gitlab struct {
	w      io.Writer
	issues []gitlabIssue
	seen   fingerprints
}

type gitlabIssue struct {
	Description string         `json:"description"`
	CheckName   string         `json:"check_name"`
	Fingerprint string         `json:"fingerprint"`
	Severity    string         `json:"severity"`
	Location    gitlabLocation `json:"location"`
}

type gitlabLocation struct {
	Path  string      `json:"path"`
	Lines gitlabLines `json:"lines"`
}

type gitlabLines struct {
	Begin int `json:"begin"`
}

var _ = format(Format{Name: "gitlab", Syntax: SyntaxJSON, New: newGitLab,
	Doc: "GitLab's code quality report, for the merge request widget"})

func newGitLab(w io.Writer, _ Options) Writer {
	return &gitlab{w: w, issues: []gitlabIssue{}, seen: fingerprints{}}
}

func gitlabSeverity(s analysis.Severity) string {
	switch s {
	case analysis.SeverityError:
		return "critical"
	case analysis.SeverityWarning:
		return "major"
	}
	return "info"
}

func (g *gitlab) Write(f analysis.Finding) error {
	// The fingerprint identifies the finding across pipelines
	// (fingerprints): not its line nor its wording.
	line := f.Source.Line
	if line == 0 {
		line = 1
	}
	g.issues = append(g.issues, gitlabIssue{
		Description: printable.String(f.Code + " " + f.Subject() + ": " + f.Message),
		CheckName:   f.Code,
		Fingerprint: g.seen.next(f),
		Severity:    gitlabSeverity(f.Severity),
		Location:    gitlabLocation{Path: printable.Line(filepath.ToSlash(f.Source.File)), Lines: gitlabLines{Begin: line}},
	})
	return nil
}

func (g *gitlab) Flush() error {
	return writeJSON(g.w, g.issues)
}
