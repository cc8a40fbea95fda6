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

// WriteNotices writes one "routeguard: <level>: <text>" line per notice.
func WriteNotices(w io.Writer, ns []Notice) {
	for _, n := range ns {
		fmt.Fprintf(w, "routeguard: %s: %s\n", n.Level, printable.Line(n.Text))
	}
}
