// Package report writes analysis findings in the formats CI systems read:
// text for people, json (a documented stable schema), sarif 2.1.0 for code
// scanning, junit for test reports, gitlab for GitLab's code quality
// widget. Every format sits behind one two-method interface; Write buffers
// what the format needs and Flush writes it out, so an error before Flush
// leaves the output untouched.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
)

// Writer receives findings one by one and writes the report on Flush.
type Writer interface {
	Write(f analysis.Finding) error
	Flush() error
}

// Options tune a report.
type Options struct {
	// Color turns on ANSI colours in the text format (only for a terminal).
	Color bool
	// Version is routeguard's version, recorded by sarif.
	Version string
}

// Format is one report format: what `-o` and `--report` accept, the
// generated table of formats (docs/analysis.md, README.md) and the fuzz
// test's checks read it.
type Format struct {
	// Name is what -o and --report take.
	Name string
	// Syntax is what the output is, checked by the fuzz test for every
	// format of that syntax.
	Syntax Syntax
	// Doc says in a sentence what the format is for (the table of formats).
	Doc string
	// New returns the writer.
	New func(io.Writer, Options) Writer
}

// Syntax is the kind of text a format writes.
type Syntax string

// The syntaxes of the formats.
const (
	// SyntaxText: lines for people, no raw control characters, no line a
	// workflow command.
	SyntaxText Syntax = "text"
	// SyntaxJSON: one JSON document.
	SyntaxJSON Syntax = "JSON"
	// SyntaxXML: one XML document.
	SyntaxXML Syntax = "XML"
	// SyntaxMarkdown: Markdown whose markup is all routeguard's, under
	// MaxMarkdown bytes.
	SyntaxMarkdown Syntax = "Markdown"
	// SyntaxWorkflowCommands: GitHub Actions workflow commands, one line
	// per finding.
	SyntaxWorkflowCommands Syntax = "workflow commands"
)

// Formats lists the format names New accepts, sorted.
func Formats() []string { return slices.Sorted(maps.Keys(formats)) }

// All lists every format, sorted by name.
func All() []Format {
	out := make([]Format, 0, len(formats))
	for _, n := range Formats() {
		out = append(out, formats[n])
	}
	return out
}

// formats holds every format. Each format file adds itself
// (`var _ = format(Format{...})`), so a new format is one file and its
// test; the order of addition does not matter (Formats sorts).
var formats = map[string]Format{}

func format(f Format) struct{} {
	if _, dup := formats[f.Name]; dup {
		panic("report: format " + f.Name + " defined twice")
	}
	if f.Syntax == "" || f.Doc == "" || f.New == nil {
		panic("report: format " + f.Name + " needs a Syntax, a Doc and New")
	}
	formats[f.Name] = f
	return struct{}{}
}

// New returns the writer for format.
func New(format string, w io.Writer, opts Options) (Writer, error) {
	f, ok := formats[format]
	if !ok {
		return nil, fmt.Errorf("unknown output format %q: use one of %s", format, strings.Join(Formats(), ", "))
	}
	return f.New(w, opts), nil
}

// WriteAll writes every finding and flushes.
func WriteAll(w Writer, fs []analysis.Finding) error {
	for _, f := range fs {
		if err := w.Write(f); err != nil {
			return err
		}
	}
	return w.Flush()
}

// Summary counts findings by severity.
type Summary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
}

// Summarize counts fs.
func Summarize(fs []analysis.Finding) Summary {
	var s Summary
	for _, f := range fs {
		s.add(f)
	}
	return s
}

func (s *Summary) add(f analysis.Finding) {
	switch f.Severity {
	case analysis.SeverityError:
		s.Errors++
	case analysis.SeverityWarning:
		s.Warnings++
	default:
		s.Infos++
	}
}

// String renders "1 error, 2 warnings, 0 infos".
func (s Summary) String() string {
	return fmt.Sprintf("%s, %s, %s", plural(s.Errors, "error"), plural(s.Warnings, "warning"), plural(s.Infos, "info"))
}

func plural(n int, what string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", what)
	}
	if what == "info" {
		return fmt.Sprintf("%d infos", n)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// codesOf returns the distinct codes of fs, sorted.
func codesOf(fs []analysis.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// writeJSON writes v indented, without HTML escaping (file names such as
// "<stdin>" stay readable), followed by a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
