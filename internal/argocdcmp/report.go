package argocdcmp

import (
	"fmt"
	"io"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/report"
)

// ReportLimit is how many findings the stderr report lists before it says
// how many more there are, so that Argo CD's ComparisonError stays readable.
const ReportLimit = 20

// summaryLine renders "N errors, M warnings" (always plural, so that
// notification templates can parse it).
func summaryLine(s report.Summary) string {
	return fmt.Sprintf("%d errors, %d warnings", s.Errors, s.Warnings)
}

// FindingLine renders one finding as
// "file:line: CODE severity Kind ns/name: message".
func FindingLine(f analysis.Finding) string {
	msg := strings.Join(strings.Fields(f.Message), " ")
	return fmt.Sprintf("%s: %s %s %s: %s", f.Source, f.Code, f.Severity, f.Object, msg)
}

// WriteReport writes the report Argo CD shows as the app's ComparisonError:
//
//	routeguard: N errors, M warnings in <app path> (<tool>)
//	file:line: CODE severity Kind ns/name: message
//	... and K more
//
// Errors come first, then warnings, each in file order; infos are counted
// in neither and not listed. At most limit lines are listed.
func WriteReport(w io.Writer, fs []analysis.Finding, appPath, tool string, limit int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "routeguard: %s in %s (%s)\n", summaryLine(report.Summarize(fs)), appPath, tool)
	listed := ordered(fs)
	for i, f := range listed {
		if i == limit {
			fmt.Fprintf(&b, "... and %d more\n", len(listed)-limit)
			break
		}
		b.WriteString(FindingLine(f) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ordered returns the errors, then the warnings of fs, keeping their order.
func ordered(fs []analysis.Finding) []analysis.Finding {
	var out []analysis.Finding
	for _, sev := range []analysis.Severity{analysis.SeverityError, analysis.SeverityWarning} {
		for _, f := range fs {
			if f.Severity == sev {
				out = append(out, f)
			}
		}
	}
	return out
}
