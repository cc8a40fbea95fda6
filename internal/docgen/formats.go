package docgen

import (
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/report"
)

// formatsTable is the table of report formats (docs/analysis.md, README.md),
// from report.All: each format's name, syntax and Doc.
func formatsTable() (string, error) {
	var b strings.Builder
	b.WriteString("| format | output | for |\n|---|---|---|\n")
	for _, f := range report.All() {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", f.Name, f.Syntax, cell(f.Doc))
	}
	return b.String(), nil
}
