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

// Caps of the text output: a table shows its first maxTextRows rows and a
// cell its first maxTextCell characters, each saying how many it left out
// (-o json has everything).
const (
	maxTextRows = 1000
	maxTextCell = 500
)

// WriteText writes the result for a terminal: one table per section that
// has rows; repository text escaped (printable.Line) and shortened, and no
// line a CI runner would read as a command (printable.Lines).
func (r *Result) WriteText(w io.Writer) error {
	if r.Review == ReviewManifests {
		return r.writeManifestsText(w)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "routeguard diff %s\npaths: %s\n", text(r.revisions()), text(strings.Join(r.Paths, " ")))
	if r.Reused > 0 {
		fmt.Fprintf(&b, "(%d of %d paths unchanged: rendered once, not analyzed)\n", r.Reused, len(r.Paths))
	}
	if r.Apps != nil {
		fmt.Fprintf(&b, "%s\n", r.Apps)
	}
	fmt.Fprintf(&b, "routing objects checked: %d at base, %d at head\n", r.RoutingObjects.Base, r.RoutingObjects.Head)
	for _, s := range r.sections() {
		if len(s.rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s (%d)\n", s.title, len(s.rows))
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "   \t"+strings.ToUpper(strings.Join(s.columns[1:], "\t")))
		for i, row := range s.rows {
			if i == maxTextRows {
				tw.Flush()
				fmt.Fprintf(&b, "  ... and %s more rows (routeguard diff -o json has them all)\n", printable.Count(len(s.rows)-i))
				break
			}
			cells := make([]string, len(row))
			cells[0] = "  " + signs[row[0]]
			for i, c := range row[1:] {
				cells[i+1] = text(c)
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		tw.Flush()
	}
	fmt.Fprintf(&b, "\n%s\n", r.Summary())
	if _, err := io.WriteString(w, printable.Lines(b.String())); err != nil {
		return err
	}
	if r.Manifests != nil {
		fmt.Fprintln(w)
		return r.Manifests.WriteText(w)
	}
	return nil
}

// text is repository text in one cell of the text output.
func text(s string) string { return printable.Line(printable.Cut(s, maxTextCell)) }
