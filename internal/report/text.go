package report

import (
	"bufio"
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

var _ = format("text", newText)

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

func (t *text) Flush() error {
	b := bufio.NewWriter(t.w)
	if len(t.files) == 0 {
		fmt.Fprintln(b, "no findings")
		return b.Flush()
	}
	for _, file := range t.files {
		name := file
		if name == "" {
			name = "(no file)"
		}
		fmt.Fprintln(b, t.paint(ansiBold, printable.Line(name)))
		for _, f := range t.by[file] {
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
				subject = " " + printable.Line(subject)
			}
			fmt.Fprintf(b, "  %s: %s %s%s: %s\n", printable.Line(f.Source.String()), sev, f.Code, subject, printable.Line(f.Message))
		}
	}
	fmt.Fprintf(b, "\n%s\n", t.sum)
	return b.Flush()
}
