package printable

import "testing"

func TestString(t *testing.T) {
	for _, tc := range []struct{ in, want, line string }{
		{"plain: ünïcode ok", "plain: ünïcode ok", "plain: ünïcode ok"},
		{"two\nlines\tand a tab", "two\nlines\tand a tab", `two\nlines\tand a tab`},
		{"red \x1b[31mERROR\x1b[0m", `red \x1b[31mERROR\x1b[0m`, `red \x1b[31mERROR\x1b[0m`},
		{"hidden\rrewritten", `hidden\rrewritten`, `hidden\rrewritten`},
		{"c1 \u009b31m", `c1 \u009b31m`, `c1 \u009b31m`},
		{"del \x7f bell \a", `del \x7f bell \a`, `del \x7f bell \a`},
		{"bad utf8 \xff\xfe", `bad utf8 \xff\xfe`, `bad utf8 \xff\xfe`},
	} {
		if got := String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := Line(tc.in); got != tc.line {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
		}
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{"", "a\x1b[2Jb", "\r\n\t", "\xff", "\u009b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Line(s)
		if !clean(out, false) {
			t.Fatalf("Line(%q) = %q still holds a control character", s, out)
		}
		if clean(s, false) && out != s {
			t.Fatalf("Line changed clean text %q to %q", s, out)
		}
	})
}
