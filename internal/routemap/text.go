package routemap

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/routeguard/routeguard/internal/printable"
)

// Caps of the text map: a table shows its first maxTextRows rows and a
// cell its first maxTextCell characters, each saying how many it left
// out (-o json has everything).
const (
	maxTextRows = 1000
	maxTextCell = 500
)

// WriteText writes the route table and the attachments, TLS hosts and
// ReferenceGrants for a terminal: repository text escaped
// (printable.Line) and shortened, and no line a CI runner would read as a
// command (printable.Lines).
func WriteText(w io.Writer, m *Map) error {
	var b strings.Builder
	table := func(title string, header []string, n int, row func(i int) []string) {
		fmt.Fprintln(&b, title)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		if header != nil {
			fmt.Fprintln(tw, strings.Join(header, "\t"))
		}
		for i := range n {
			if i == maxTextRows {
				tw.Flush()
				fmt.Fprintf(&b, "  ... and %s more rows (routeguard map -o json has them all)\n", printable.Count(n-i))
				break
			}
			cells := row(i)
			for j := range cells {
				cells[j] = printable.Line(printable.Cut(cells[j], maxTextCell))
			}
			fmt.Fprintln(tw, "  "+strings.Join(cells, "\t"))
		}
		tw.Flush()
	}
	table("Routes", []string{"  PARENT", "HOST", "MATCH", "ROUTE", "BACKENDS"}, len(m.Entries), func(i int) []string {
		e := m.Entries[i]
		return []string{e.Parent, e.Host, e.Match, e.Route, BackendsString(e.Backends)}
	})
	if len(m.Attachments) > 0 {
		table("\nAttachments", nil, len(m.Attachments), func(i int) []string {
			a := m.Attachments[i]
			return []string{a.Route, "-> " + a.Parent, a.State + listeners(a.Listeners), a.Reason}
		})
	}
	if len(m.TLS) > 0 {
		table("\nTLS hosts", nil, len(m.TLS), func(i int) []string {
			t := m.TLS[i]
			return []string{t.Parent, t.Host, t.Certificate}
		})
	}
	if len(m.Grants) > 0 {
		table("\nReferenceGrants", nil, len(m.Grants), func(i int) []string {
			g := m.Grants[i]
			return []string{g.Grant, "from " + g.From, "to " + g.To}
		})
	}
	_, err := io.WriteString(w, printable.Lines(b.String()))
	return err
}

func listeners(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return " (" + strings.Join(ls, ", ") + ")"
}
