package printable

import (
	"bytes"
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain\ntext", "plain\ntext"},
		{"::error title=forged::x", `\x3a:error title=forged::x`},
		{"ok\n  ::warning::y\n", "ok\n  \\x3a:warning::y\n"},
		{"\u00a0\u3000::add-mask::z", "\u00a0\u3000\\x3a:add-mask::z"},
		{"a\r::stop-commands::t", "a\r\\x3a:stop-commands::t"},
		{"name ::error:: inside a line", "name ::error:: inside a line"},
		{"legacy ##[error]boom", `legacy #\x23[error]boom`},
		{"###[x", `##\x23[x`},
		{"IPv6 ::1 mid-line, and ':x'", "IPv6 ::1 mid-line, and ':x'"},
		{":single colon", ":single colon"},
	} {
		if got := Lines(tc.in); got != tc.want {
			t.Errorf("Lines(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A command split over two writes is still caught, and a line is never
// held back once it is complete.
func TestWriter(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	for _, p := range []string{"routeguard: warning: first\n  :", ":error::forged\nsecond ##", "[x] and no newline"} {
		if n, err := w.Write([]byte(p)); err != nil || n != len(p) {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	if got, want := out.String(), "routeguard: warning: first\n  \\x3a:error::forged\n"; got != want {
		t.Fatalf("before Flush: %q, want %q", got, want)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "routeguard: warning: first\n  \\x3a:error::forged\nsecond #\\x23[x] and no newline"; got != want {
		t.Fatalf("after Flush: %q, want %q", got, want)
	}
}

func FuzzLines(f *testing.F) {
	for _, s := range []string{"", "::error::x", " \t::a", "a\n::b\r::c", "##[x", "#", ":", "\u2028::x"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, chunk int) {
		out := Lines(s)
		for _, l := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
			if startsCommand(l) {
				t.Fatalf("Lines(%q) = %q: line %q is a command", s, out, l)
			}
		}
		if !strings.Contains(s, "::") && !strings.Contains(s, "##[") && out != s {
			t.Fatalf("Lines changed %q to %q", s, out)
		}
		// The stream in chunks gives the same text.
		var b bytes.Buffer
		w := NewWriter(&b)
		if chunk < 1 {
			chunk = 1
		}
		for rest := s; rest != ""; {
			n := min(chunk, len(rest))
			w.Write([]byte(rest[:n]))
			rest = rest[n:]
		}
		w.Flush()
		if b.String() != out {
			t.Fatalf("Writer in chunks of %d wrote %q, Lines %q", chunk, b.String(), out)
		}
	})
}
