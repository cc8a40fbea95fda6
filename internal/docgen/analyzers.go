package docgen

import (
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis/registry"
)

// analyzersTable is the table of built-in analyzers (docs/analysis.md),
// from each analyzer's Metadata: its name and Doc.
func analyzersTable() (string, error) {
	var b strings.Builder
	b.WriteString("| analyzer | checks |\n|---|---|\n")
	for _, a := range registry.All() {
		m := a.Metadata()
		if m.Doc == "" {
			return "", fmt.Errorf("analyzer %s has no Doc in its Metadata: say what it checks, for the table of analyzers", m.Name)
		}
		fmt.Fprintf(&b, "| `%s` | %s |\n", m.Name, cell(m.Doc))
	}
	return b.String(), nil
}
