package analysis

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestDocsListEveryCode checks that docs/analysis.md lists every catalog
// code with its default severity and title, as the catalog says. Run with
// ROUTEGUARD_PRINT_CATALOG=1 to print the table.
func TestDocsListEveryCode(t *testing.T) {
	var table strings.Builder
	for _, c := range Catalog() {
		fmt.Fprintf(&table, "| %s | %s | %s | %s |\n", c.ID, c.Severity, c.Title, c.Description)
	}
	if os.Getenv("ROUTEGUARD_PRINT_CATALOG") == "1" {
		fmt.Print(table.String())
	}
	doc, err := os.ReadFile("../../docs/analysis.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range strings.Split(strings.TrimSpace(table.String()), "\n") {
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/analysis.md lacks the catalog row:\n%s", row)
		}
	}
}
