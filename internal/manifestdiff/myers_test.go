package manifestdiff

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// lcs is the length of the longest common subsequence (the textbook
// quadratic table): a minimal script has len(a)+len(b)-2·lcs edits.
func lcs(a, b []string) int {
	t := make([][]int, len(a)+1)
	for i := range t {
		t[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	return t[0][0]
}

// apply rebuilds both sides from a script, checking every index.
func apply(t *testing.T, a, b []string, s []op) {
	t.Helper()
	var ga, gb []string
	for _, o := range s {
		switch o.kind {
		case ' ':
			if a[o.a] != b[o.b] {
				t.Fatalf("kept line %d/%d differs: %q %q", o.a, o.b, a[o.a], b[o.b])
			}
			ga, gb = append(ga, a[o.a]), append(gb, b[o.b])
		case '-':
			ga = append(ga, a[o.a])
		case '+':
			gb = append(gb, b[o.b])
		}
	}
	if !slices.Equal(ga, a) || !slices.Equal(gb, b) {
		t.Fatalf("script does not rebuild the sides:\n%q\n%q\nfrom %q %q", ga, gb, a, b)
	}
}

func TestDiffLinesMinimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 500 {
		a := make([]string, rng.IntN(30))
		b := make([]string, rng.IntN(30))
		for i := range a {
			a[i] = string(rune('a' + rng.IntN(4)))
		}
		for i := range b {
			b[i] = string(rune('a' + rng.IntN(4)))
		}
		s := diffLines(a, b)
		apply(t, a, b, s)
		edits := 0
		for _, o := range s {
			if o.kind != ' ' {
				edits++
			}
		}
		if want := len(a) + len(b) - 2*lcs(a, b); edits != want {
			t.Fatalf("case %d: %d edits, the shortest has %d (%q → %q)", n, edits, want, a, b)
		}
	}
}

// TestDiffLinesBounded: sides further apart than maxEdits still give a
// correct script (removed, then added, between the common ends).
func TestDiffLinesBounded(t *testing.T) {
	var a, b []string
	a = append(a, "head")
	b = append(b, "head")
	for i := range 3 * maxEdits {
		a = append(a, fmt.Sprint("a", i))
		b = append(b, fmt.Sprint("b", i))
	}
	a, b = append(a, "tail"), append(b, "tail")
	s := diffLines(a, b)
	apply(t, a, b, s)
	if s[0].kind != ' ' || s[len(s)-1].kind != ' ' || s[1].kind != '-' || s[len(s)-2].kind != '+' {
		t.Errorf("common ends not kept, or the middle not removed then added")
	}
}

func TestHunks(t *testing.T) {
	a := strings.Split("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20", " ")
	b := slices.Clone(a)
	b[1] = "two"                     // line 2
	b = slices.Insert(b, 17, "17.5") // after line 17
	hs := hunks(a, b, diffLines(a, b))
	var got []string
	for _, h := range hs {
		got = append(got, h.Header())
		got = append(got, h.Lines...)
	}
	// What diff -u prints for the same two files.
	want := []string{
		"@@ -1,5 +1,5 @@", " 1", "-2", "+two", " 3", " 4", " 5",
		"@@ -15,6 +15,7 @@", " 15", " 16", " 17", "+17.5", " 18", " 19", " 20",
	}
	if !slices.Equal(got, want) {
		t.Errorf("hunks:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// An empty side: diff -u's "-0,0".
	hs = hunks(nil, []string{"x", "y"}, diffLines(nil, []string{"x", "y"}))
	if len(hs) != 1 || hs[0].Header() != "@@ -0,0 +1,2 @@" {
		t.Errorf("added whole: %+v", hs)
	}
	// Changes 6 kept lines apart share a hunk; 7 apart do not.
	a = strings.Split("a b c d e f g h i j k l m n o p", " ")
	b = slices.Clone(a)
	b[2], b[9] = "C", "J"
	if n := len(hunks(a, b, diffLines(a, b))); n != 1 {
		t.Errorf("changes 6 lines apart: %d hunks, want 1", n)
	}
	b = slices.Clone(a)
	b[2], b[10] = "C", "K"
	if n := len(hunks(a, b, diffLines(a, b))); n != 2 {
		t.Errorf("changes 7 lines apart: %d hunks, want 2", n)
	}
}

// TestDiffLinesScattered: more changes than maxEdits, spread over unique
// lines, still keep every unchanged line (the patience split), and the
// script is correct.
func TestDiffLinesScattered(t *testing.T) {
	var a, b []string
	changes := 0
	for i := range 20000 {
		l := fmt.Sprint("line ", i)
		a = append(a, l)
		if i%7 == 3 {
			b = append(b, l+" changed")
			changes++
		} else {
			b = append(b, l)
		}
	}
	s := diffLines(a, b)
	apply(t, a, b, s)
	edits := 0
	for _, o := range s {
		if o.kind != ' ' {
			edits++
		}
	}
	if changes <= maxEdits || edits != 2*changes {
		t.Errorf("%d edits for %d changed lines (maxEdits %d), want %d", edits, changes, maxEdits, 2*changes)
	}
}
