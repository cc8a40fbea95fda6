package progress

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/term"
)

// Mode says when progress is shown.
type Mode int

// Modes: Auto shows progress when the writer is a terminal, Always on
// any writer (plain lines unless it is a terminal), Never not at all.
const (
	Auto Mode = iota
	Always
	Never
)

// EnvVar is the environment variable that sets the mode (the flag
// --progress wins over it).
const EnvVar = "ROUTEGUARD_PROGRESS"

// Modes lists the names ParseMode accepts.
var Modes = []string{"auto", "always", "never"}

// ParseMode reads auto, always or never ("" is auto).
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "auto":
		return Auto, nil
	case "always":
		return Always, nil
	case "never":
		return Never, nil
	}
	return Auto, fmt.Errorf("progress must be auto, always or never, got %q", s)
}

func (m Mode) String() string { return Modes[m] }

// Terminal says whether w, or the writer it wraps (an Unwrap method, as
// printable.Writer has), is a terminal, and its width in columns (0 when
// it is not one or cannot tell).
func Terminal(w io.Writer) (bool, int) {
	for range 8 {
		if f, ok := w.(*os.File); ok {
			fd := int(f.Fd())
			if !term.IsTerminal(fd) {
				return false, 0
			}
			width, _, err := term.GetSize(fd)
			if err != nil {
				width = 0
			}
			return true, width
		}
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			return false, 0
		}
		w = u.Unwrap()
	}
	return false, 0
}
