package flux

import (
	"strings"

	"github.com/routeguard/routeguard/internal/notice"
)

// Unbuilt lists the nodes of the tree that were not built, failed, or
// were built partly.
func (r *Result) Unbuilt() []notice.Unbuilt {
	var out []notice.Unbuilt
	for _, n := range r.Nodes {
		u := notice.Unbuilt{What: n.String(), Where: n.Object.Source.String(), RoutingFiles: n.RoutingFiles, ChartNotFetched: n.ChartNotFetched()}
		switch {
		case n.Status == Skipped:
			u.Why = "not built here (" + n.SkipKind + ")"
		case n.Status == Failed:
			u.Why = "fails to build"
		case len(n.Partial) > 0:
			u.Why, u.Partly = "built without part of it: "+strings.Join(n.Partial, "; "), true
		default:
			continue
		}
		out = append(out, u)
	}
	return out
}
