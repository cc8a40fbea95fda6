package docgen

import (
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
)

// codesTable is the catalog of codes, from analysis.Catalog.
func codesTable() (string, error) {
	var b strings.Builder
	b.WriteString("| code | severity | title | meaning and fix |\n|---|---|---|---|\n")
	for _, c := range analysis.Catalog() {
		title := c.Title
		if c.Retired {
			title = "retired: " + title
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", c.ID, c.Severity, cell(title), cell(c.Description))
	}
	return b.String(), nil
}

// cell keeps text inside one Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}
