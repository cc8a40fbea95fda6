package printable

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{strings.Repeat("x", 30010), 30, strings.Repeat("x", 30) + "…(+29,980 characters)"},
		{"ünïcödé", 3, "ünï…(+4 characters)"},
		{"abc", 0, "…(+3 characters)"},
	} {
		if got := Cut(tc.in, tc.n); got != tc.want {
			t.Errorf("Cut(%.20q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 29980: "29,980", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCollapse(t *testing.T) {
	unit := `template: c/templates/a.yaml:1:20: executing "r" at <include "r" .>: error calling include: `
	msg := `hc: helm template failed: template: c/templates/a.yaml:2:3: executing "c/templates/a.yaml" at <include "r" .>: error calling include: ` +
		strings.Repeat(unit, 1000) + "rendering template has a nested reference name: r: unable to execute template"
	got := Collapse(msg)
	if len(got) > 800 {
		t.Fatalf("collapsed to %d bytes: %s", len(got), got)
	}
	for _, want := range []string{"hc: helm template failed", "a.yaml:2:3", "a.yaml:1:20", "[the same 4 parts 99", "more times]", "nested reference name: r: unable to execute template"} {
		if !strings.Contains(got, want) {
			t.Errorf("collapsed message lacks %q: %s", want, got)
		}
	}
	plain := strings.Repeat("a different part each time: ", 1) + strings.Repeat("x", 300)
	if Collapse(plain) != plain {
		t.Errorf("Collapse changed a message without repeats")
	}
	if two := strings.Repeat(strings.Repeat("y", 200)+": ", 2); Collapse(two) != two {
		t.Errorf("Collapse shortened a part said only twice")
	}
}

func FuzzCut(f *testing.F) {
	f.Add("hello", 3)
	f.Add("ünïcödé\xff", 2)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = n % 1000
		out := Cut(s, n)
		if n >= 0 && utf8.RuneCountInString(s) <= n && out != s {
			t.Fatalf("Cut(%q, %d) changed a short text: %q", s, n, out)
		}
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("Cut(%q, %d) split a character: %q", s, n, out)
		}
		if n >= 0 && utf8.RuneCountInString(out) > n+len("…(+ characters)")+20 {
			t.Fatalf("Cut(%q, %d) = %q is too long", s, n, out)
		}
	})
}
