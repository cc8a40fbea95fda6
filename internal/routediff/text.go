package routediff

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/routeguard/routeguard/internal/printable"
	"github.com/routeguard/routeguard/internal/routemap"
)

var signs = map[string]string{routemap.Added: "+", routemap.Removed: "-", routemap.Changed: "~", notBuiltChange: "!"}

// WriteText writes the result for a terminal: one table per section that
// has rows; repository text escaped (printable.Line).
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "routeguard diff %s\npaths: %s\n", printable.Line(r.revisions()), printable.Line(strings.Join(r.Paths, " ")))
	if r.Reused > 0 {
		fmt.Fprintf(&b, "(%d of %d paths unchanged: rendered once, not analyzed)\n", r.Reused, len(r.Paths))
	}
	fmt.Fprintf(&b, "routing objects checked: %d at base, %d at head\n", r.RoutingObjects.Base, r.RoutingObjects.Head)
	for _, s := range r.sections() {
		if len(s.rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s (%d)\n", s.title, len(s.rows))
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "   \t"+strings.ToUpper(strings.Join(s.columns[1:], "\t")))
		for _, row := range s.rows {
			cells := make([]string, len(row))
			cells[0] = "  " + signs[row[0]]
			for i, c := range row[1:] {
				cells[i+1] = printable.Line(c)
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		tw.Flush()
	}
	fmt.Fprintf(&b, "\n%s\n", r.Summary())
	_, err := io.WriteString(w, b.String())
	return err
}
