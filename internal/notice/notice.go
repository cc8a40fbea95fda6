// Package notice is what routeguard tells the user that is not a finding:
// a source it skipped, a plugin that failed, how it read its input. Every
// part (the sources render, flux and argocd, the pipeline, the diff) says
// it with one type, and every command prints it with Write, the one place
// repository text in a notice is escaped for the terminal.
package notice

import (
	"fmt"
	"io"

	"github.com/routeguard/routeguard/internal/printable"
)

// Level ranks a notice.
type Level string

// Notice levels.
const (
	Note    Level = "note"
	Warning Level = "warning"
	Error   Level = "error"
)

// Notice is something the user should know that is not a finding.
type Notice struct {
	Level Level
	Text  string
}

// Notef is a note.
func Notef(format string, a ...any) Notice {
	return Notice{Level: Note, Text: fmt.Sprintf(format, a...)}
}

// Warningf is a warning.
func Warningf(format string, a ...any) Notice {
	return Notice{Level: Warning, Text: fmt.Sprintf(format, a...)}
}

// Caps of the notices on stderr: the first maxNotices distinct ones, each
// cut at maxNoticeChars characters (after collapsing repeats, as Helm's
// recursive template errors have: printable.Collapse); a notice said more
// than once is written once with its count.
const (
	maxNotices     = 200
	maxNoticeChars = 4000
)

// Write writes one "routeguard: <level>: <text>" line per distinct
// notice, the text escaped (printable.Line: it may hold repository text)
// and shortened, and says how many it left out past maxNotices.
func Write(w io.Writer, ns []Notice) {
	seen := map[Notice]int{}
	var order []Notice
	for _, n := range ns {
		if seen[n] == 0 {
			order = append(order, n)
		}
		seen[n]++
	}
	for i, n := range order {
		if i == maxNotices {
			rest, level := 0, Note
			for _, m := range order[i:] {
				rest += seen[m]
				level = worse(level, m.Level)
			}
			fmt.Fprintf(w, "routeguard: %s: ... and %s more notices left out\n", level, printable.Count(rest))
			return
		}
		times := ""
		if seen[n] > 1 {
			times = " (said " + printable.Count(seen[n]) + " times)"
		}
		fmt.Fprintf(w, "routeguard: %s: %s%s\n", n.Level, printable.Line(printable.Cut(printable.Collapse(n.Text), maxNoticeChars)), times)
	}
}

func worse(a, b Level) Level {
	rank := map[Level]int{Note: 0, Warning: 1, Error: 2}
	if rank[b] > rank[a] {
		return b
	}
	return a
}
