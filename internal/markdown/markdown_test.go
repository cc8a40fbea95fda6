package markdown

import (
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"shop.example.com", "shop.example.com"},
		{"<img src=x>", "&#60;img src=x&#62;"},
		{"@octocat", "&#64;&#8203;octocat"},
		{"mail@evil.example", "mail&#64;&#8203;evil.example"},
		{"see https://evil.example/x", "see https:&#8203;//evil.example/x"},
		{"WWW.evil.example", "WWW&#8203;.evil.example"},
		{"fix #12", "fix &#35;&#8203;12"},
		{"a|b`c`", "a&#124;b&#96;c&#96;"},
		{"two\nlines\ttab", "two lines tab"},
		{"esc \x1b[2J", "esc &#92;x1b&#91;2J"},
		{"&amp;", "&#38;amp;"},
		{"…(+3 characters)", "…(+3 characters)"},
	} {
		if got := Text(tc.in); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Cell(strings.Repeat("é", 40), 30); got != strings.Repeat("&#233;", 30)+"…(+10 characters)" {
		t.Errorf("Cell = %q", got)
	}
}

// TestDocumentOrder: the least important section is lowered first, the
// foot's room is reserved, and every lowered level says so.
func TestDocumentOrder(t *testing.T) {
	big := func(name string) Section {
		return Section{Levels: 3, At: func(l int) string {
			return name + strings.Repeat(".", []int{100, 40, 5}[l]) + "\n"
		}}
	}
	foot := func(shortened bool) string {
		if shortened {
			return strings.Repeat("f", 30)
		}
		return ""
	}
	d := Document{Budget: 200, Head: "H\n", Foot: foot, Sections: []Section{big("a"), big("b"), big("c")}, Priority: []int{1, 0, 2}}
	out, err := d.Render()
	if err != nil {
		t.Fatal(err)
	}
	// Room: 200 - 2 (head) - 30 (foot) = 168. Full: 3 × 102 = 306. Round
	// one lowers c, a, b (least important first) while it does not fit:
	// c → 42 (246), a → 42 (186), b → 42 (126): fits.
	want := "H\n" + "a" + strings.Repeat(".", 40) + "\n" + "b" + strings.Repeat(".", 40) + "\n" + "c" + strings.Repeat(".", 40) + "\n" + strings.Repeat("f", 30)
	if out != want {
		t.Errorf("got\n%q\nwant\n%q", out, want)
	}
	d.Budget = 150 // round two lowers c first, and that fits
	out, _ = d.Render()
	if !strings.Contains(out, "b"+strings.Repeat(".", 40)+"\n") || !strings.Contains(out, "c.....\n") || !strings.Contains(out, "a"+strings.Repeat(".", 40)+"\n") {
		t.Errorf("budget 150: %q", out)
	}
	d.Budget = 10
	if _, err := d.Render(); err == nil {
		t.Errorf("a document that cannot fit rendered")
	}
	d.Budget = 1000
	if out, _ := d.Render(); strings.Contains(out, "fff") {
		t.Errorf("the foot says shortened when nothing was: %q", out)
	}
}
