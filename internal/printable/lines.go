package printable

import (
	"io"
	"strings"
	"sync"
	"unicode"
)

// A CI log reads some lines of a job's output as commands. GitHub Actions'
// runner (ActionCommand.TryParseV2) takes a line that starts with "::"
// after leading white space as a workflow command (::error title=…::,
// ::add-mask::, ::stop-commands::), and its legacy parser (TryParse) a line
// holding "##[" anywhere (##[error]…). It splits lines at "\n" and "\r".
// Text from a repository (a directory named "::error title=forged::…")
// must not become one: Lines and Writer write such a "::" as `\x3a:` and
// "##[" as `#\x23[`, the Go escapes String uses. GitLab's job log reads no
// commands from text (its section markers need an escape character, which
// String already writes as \x1b).

// Lines returns s with no line that a CI runner reads as a command.
// Text without any is returned as it is; control characters are not
// touched (String and Line escape those in repository text).
func Lines(s string) string {
	if !strings.Contains(s, "::") && !strings.Contains(s, "##[") {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			b.WriteString(line(s))
			break
		}
		b.WriteString(line(s[:i]))
		b.WriteByte(s[i])
		s = s[i+1:]
	}
	return b.String()
}

// line neutralizes one line (without its terminator).
func line(s string) string {
	start := len(s) - len(strings.TrimLeftFunc(s, blank))
	if strings.HasPrefix(s[start:], "::") {
		s = s[:start] + `\x3a` + s[start+1:]
	}
	if strings.Contains(s, "##[") {
		s = strings.ReplaceAll(s, "##[", `#\x23[`)
	}
	return s
}

// Writer applies Lines to a stream, line by line: a line is written once
// it is complete (or on Flush), so that a command cannot be assembled from
// two writes. It is safe for concurrent use (the watchdog's message may
// come from another goroutine).
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	partial []byte
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Unwrap returns the writer underneath (to ask whether it is a terminal).
func (l *Writer) Unwrap() io.Writer { return l.w }

// Write writes the complete lines of p (with any held back before) and
// holds back the rest. It reports len(p) when every complete line was
// written.
func (l *Writer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	end := lastLineEnd(p)
	if end < 0 {
		l.partial = append(l.partial, p...)
		return len(p), nil
	}
	text := string(l.partial) + string(p[:end+1])
	l.partial = append(l.partial[:0], p[end+1:]...)
	if _, err := io.WriteString(l.w, Lines(text)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is held back of an unfinished line.
func (l *Writer) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.partial) == 0 {
		return nil
	}
	text := string(l.partial)
	l.partial = l.partial[:0]
	_, err := io.WriteString(l.w, Lines(text))
	return err
}

func lastLineEnd(p []byte) int {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '\n' || p[i] == '\r' {
			return i
		}
	}
	return -1
}

// startsCommand reports whether a line (without its terminator) would be
// read as a command: for tests and fuzzing.
func startsCommand(s string) bool {
	t := strings.TrimLeftFunc(s, blank)
	return strings.HasPrefix(t, "::") || strings.Contains(s, "##[")
}

// blank is the white space a runner may trim before "::": Unicode's
// White_Space (.NET's Char.IsWhiteSpace) and, to be safe, the invisible
// characters older runtimes trimmed too (U+180E, U+200B, U+FEFF).
func blank(r rune) bool {
	return unicode.IsSpace(r) || r == '\u180e' || r == '\u200b' || r == '\ufeff'
}
