package docgen

import (
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/notifications"
)

// triggersTable is the table of Argo CD triggers (docs/notifications.md),
// from notifications.Triggers: one row per condition, with its description,
// its oncePer and the templates it sends.
func triggersTable() (string, error) {
	trs, err := notifications.Triggers()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("| trigger | fires when | at most once per (`oncePer`) | sends |\n|---|---|---|---|\n")
	for _, tr := range trs {
		name := "`" + tr.Name + "`"
		for _, c := range tr.Conditions {
			once := "each time the condition becomes true"
			if c.OncePer != "" {
				once = "`" + c.OncePer + "`"
			}
			sends := make([]string, len(c.Send))
			for i, s := range c.Send {
				sends[i] = "`" + s + "`"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", name, cell(c.Description), cell(once), strings.Join(sends, ", "))
			name = ""
		}
	}
	return b.String(), nil
}
