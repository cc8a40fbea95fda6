package pipeline

import (
	"fmt"
	"io"

	"github.com/routeguard/routeguard/internal/printable"
)

// Level ranks a notice.
type Level string

// Notice levels.
const (
	LevelNote    Level = "note"
	LevelWarning Level = "warning"
	LevelError   Level = "error"
)

// Notice is something the user should know that is not a finding: a plugin
// that failed or was not found, a part of the input that was skipped.
type Notice struct {
	Level Level
	Text  string
}

// Caps of the notices on stderr: the first maxNotices distinct ones, each
// cut at maxNoticeChars characters (after collapsing repeats, as Helm's
// recursive template errors have: printable.Collapse); a notice said more
// than once is written once with its count.
const (
	maxNotices     = 200
	maxNoticeChars = 4000
)

// WriteNotices writes one "routeguard: <level>: <text>" line per distinct
// notice, repository text escaped and shortened, and says how many it left
// out past maxNotices.
func WriteNotices(w io.Writer, ns []Notice) {
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
			rest, level := 0, LevelNote
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
	rank := map[Level]int{LevelNote: 0, LevelWarning: 1, LevelError: 2}
	if rank[b] > rank[a] {
		return b
	}
	return a
}
