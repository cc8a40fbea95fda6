package manifest

import "fmt"

// Error is an input error tied to a place in a file.
type Error struct {
	File string
	Line int // 0 when the error is about the file as a whole
	Msg  string
	Err  error // underlying cause, if any
}

func (e *Error) Error() string {
	msg := e.Msg
	if e.Err != nil {
		if msg == "" {
			msg = e.Err.Error()
		} else {
			msg += ": " + e.Err.Error()
		}
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, msg)
	}
	return fmt.Sprintf("%s: %s", e.File, msg)
}

func (e *Error) Unwrap() error { return e.Err }
