package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/routeguard/routeguard/internal/printable"

	"github.com/routeguard/routeguard/internal/analysis"
)

// text groups findings by file, one line each:
//
//	apps/web/route.yaml
//	  apps/web/route.yaml:12: error RG1101 HTTPRoute shop/web: backendRef names ...
type text struct {
	w     io.Writer
	color bool
	files []string
	by    map[string][]analysis.Finding
	sum   Summary
}

var _ = format(Format{Name: "text", Syntax: SyntaxText, New: newText,
	Doc: "findings grouped by file, one line each, then a summary: for people and CI logs (the default)"})

func newText(w io.Writer, o Options) Writer {
	return &text{w: w, color: o.Color, by: map[string][]analysis.Finding{}}
}

func (t *text) Write(f analysis.Finding) error {
	if _, ok := t.by[f.Source.File]; !ok {
		t.files = append(t.files, f.Source.File)
	}
	t.by[f.Source.File] = append(t.by[f.Source.File], f)
	t.sum.add(f)
	return nil
}

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

func (t *text) paint(code, s string) string {
	if !t.color {
		return s
	}
	return code + s + ansiReset
}

// Caps of the text report: the first maxTextFindings findings, names cut
// at maxTextName characters and messages at maxTextMessage, each saying
// how many it left out (-o json and sarif have everything).
const (
	maxTextFindings = 1000
	maxTextName     = 500
	maxTextMessage  = 2000
)

func (t *text) Flush() error {
	var b strings.Builder
	if len(t.files) == 0 {
		fmt.Fprintln(&b, "no findings")
		_, err := io.WriteString(t.w, b.String())
		return err
	}
	shown := 0
	for _, file := range t.files {
		if shown == maxTextFindings {
			break
		}
		name := file
		if name == "" {
			name = "(no file)"
		}
		fmt.Fprintln(&b, t.paint(ansiBold, textCell(name, maxTextName)))
		for _, f := range t.by[file] {
			if shown == maxTextFindings {
				break
			}
			shown++
			sev := f.Severity.String()
			switch f.Severity {
			case analysis.SeverityError:
				sev = t.paint(ansiRed, sev)
			case analysis.SeverityWarning:
				sev = t.paint(ansiYellow, sev)
			default:
				sev = t.paint(ansiCyan, sev)
			}
			subject := strings.TrimSpace(f.Subject())
			if subject != "" { // a finding about a directory or a cluster names no object
				subject = " " + textCell(subject, maxTextName)
			}
			fmt.Fprintf(&b, "  %s: %s %s%s: %s\n", textCell(f.Source.String(), maxTextName), sev, textCell(f.Code, maxTextName), subject,
				textCell(f.Message, maxTextMessage))
		}
	}
	total := t.sum.Errors + t.sum.Warnings + t.sum.Infos
	if shown < total {
		fmt.Fprintf(&b, "... and %s more findings (-o json or -o sarif has them all)\n", printable.Count(total-shown))
	}
	fmt.Fprintf(&b, "\n%s\n", t.sum)
	_, err := io.WriteString(t.w, printable.Lines(b.String()))
	return err
}

// textCell is repository text on one line of the report, shortened.
func textCell(s string, n int) string { return printable.Line(printable.Cut(s, n)) }
