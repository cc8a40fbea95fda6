package markdown

import (
	"strings"

	"github.com/routeguard/routeguard/internal/printable"
)

// detail is one level of a list or table: how many entries it shows and
// how many characters of each cell.
type detail struct{ entries, width int }

// The levels of tables and lists, fullest first; the last shows no entry.
// The first shows at most 500 rows: more can never fit a comment, and
// building them would only cost memory.
var (
	tableDetail = []detail{{500, 1000}, {200, 300}, {50, 120}, {20, 80}, {5, 60}, {0, 0}}
	listDetail  = []detail{{50, 1000}, {20, 300}, {5, 120}, {0, 0}}
)

// Table is a section: a heading with the number of rows, and a table of
// repository text (each cell escaped and shortened). Its levels show fewer
// rows and shorter cells; every level says how many rows it leaves out.
type Table struct {
	// Title is ours (Markdown as it is), without the count.
	Title string
	// Columns are ours (Markdown as they are).
	Columns []string
	// Lead, when set, is the first cell of each row, ours (a sign), and
	// Rows then hold the other cells.
	Lead func(row int) string
	// Rows are repository text.
	Rows [][]string
	// Rest says where the whole table is ("the JSON output has them all").
	Rest string
}

// Section returns the table as a Section of a Document; a table without
// rows is an empty section.
func (t Table) Section() Section {
	if len(t.Rows) == 0 {
		return Fixed("")
	}
	return Section{Levels: len(tableDetail), At: t.at}
}

func (t Table) at(level int) string {
	d := tableDetail[level]
	var b strings.Builder
	n := len(t.Rows)
	b.WriteString("\n#### " + t.Title + " (" + printable.Count(n) + ")\n\n")
	if d.entries == 0 {
		b.WriteString("_" + rows(n) + " left out to keep this comment under the size limit; " + t.Rest + "._\n")
		return b.String()
	}
	b.WriteString("|")
	for _, c := range t.Columns {
		b.WriteString(" " + c + " |")
	}
	b.WriteString("\n|" + strings.Repeat("---|", len(t.Columns)) + "\n")
	for i, row := range t.Rows {
		if i == d.entries {
			more := " more rows; "
			if n-i == 1 {
				more = " more row; "
			}
			b.WriteString("\n_… and " + printable.Count(n-i) + more + t.Rest + "._\n")
			break
		}
		b.WriteString("|")
		if t.Lead != nil {
			b.WriteString(" " + t.Lead(i) + " |")
		}
		for _, c := range row {
			b.WriteString(" " + Cell(c, d.width) + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func rows(n int) string {
	if n == 1 {
		return "1 row"
	}
	return printable.Count(n) + " rows"
}

// List is a section: an introduction (ours) and a bulleted list of
// repository text. Its levels show fewer and shorter items; every level
// says how many it leaves out (More).
type List struct {
	// Intro is ours, Markdown as it is, ending in a newline.
	Intro string
	// Prefix starts each item: "- ", or "> - " inside a quote.
	Prefix string
	// Items are repository text.
	Items []string
	// More says that n items are left out and where they all are
	// (Markdown, ours, ending in a newline).
	More func(n int) string
}

// Section returns the list as a Section of a Document; an empty list is
// an empty section.
func (l List) Section() Section {
	if len(l.Items) == 0 {
		return Section{Levels: 1, At: func(int) string { return "" }}
	}
	return Section{Levels: len(listDetail), At: l.at}
}

func (l List) at(level int) string {
	d := listDetail[level]
	var b strings.Builder
	b.WriteString(l.Intro)
	for i, it := range l.Items {
		if i == d.entries {
			b.WriteString(l.More(len(l.Items) - i))
			break
		}
		b.WriteString(l.Prefix + Cell(it, d.width) + "\n")
	}
	return b.String()
}

// Fixed is a section with one level (what is always said in full, or a
// part that is either there or not).
func Fixed(s string) Section { return Section{Levels: 1, At: func(int) string { return s }} }

// Optional is a section that, lowered, becomes a note saying it was left
// out (a route map).
func Optional(full, leftOut string) Section {
	return Section{Levels: 2, At: func(level int) string {
		if level == 0 {
			return full
		}
		return leftOut
	}}
}
