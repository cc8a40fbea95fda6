package docgen

import (
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/routing"
)

// kindsTable is the table of routing kinds (docs/health.md), from
// routing.Kinds: which have health checks, since when Argo CD has its own,
// which decide the notifications and which count as checked routing.
func kindsTable() (string, error) {
	var b strings.Builder
	b.WriteString("| group | kind | health check (template) | Argo CD built-in since | on-routeguard-route-degraded | checked (RG0100) |\n|---|---|---|---|---|---|\n")
	yes := func(v bool) string {
		if v {
			return "yes"
		}
		return ""
	}
	for _, gk := range routing.HealthChecked {
		k, _ := routing.Lookup(gk)
		since := k.Health.ArgoCDSince
		if since == "" {
			since = "none"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", gk.Group, gk.Kind, k.Health.Template, since, yes(k.Alerted), yes(k.Alerted || k.Checked))
	}
	for _, k := range routing.Kinds {
		if k.Health == nil {
			fmt.Fprintf(&b, "| `%s` | %s | none |  | %s | %s |\n", k.Group, k.Kind, yes(k.Alerted), yes(k.Alerted || k.Checked))
		}
	}
	return b.String(), nil
}
