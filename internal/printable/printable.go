// Package printable makes text from a repository safe to print on a
// terminal: file names, object names and messages can carry control
// characters (an ANSI escape that rewrites a CI log line, a carriage return
// that hides the line before it), and routeguard prints them in its
// reports, notices and errors.
package printable

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// String returns s with every control character (C0 except newline and
// tab, DEL, C1) and every invalid UTF-8 byte written as a Go escape
// (\x1b, \r, \u009b). Text without any is returned as it is.
func String(s string) string {
	if clean(s, true) {
		return s
	}
	return escape(s, true)
}

// Line is String for one line: newlines and tabs are escaped too.
func Line(s string) string {
	if clean(s, false) {
		return s
	}
	return escape(s, false)
}

func allowed(r rune, multiline bool) bool {
	if multiline && (r == '\n' || r == '\t') {
		return true
	}
	return !unicode.IsControl(r)
}

func clean(s string, multiline bool) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || !allowed(r, multiline) {
			return false
		}
		i += n
	}
	return true
}

func escape(s string, multiline bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case allowed(r, multiline):
			b.WriteString(s[i : i+n])
		default:
			q := strconv.QuoteRuneToASCII(r) // '\x1b', '\r', '\u009b'
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}
