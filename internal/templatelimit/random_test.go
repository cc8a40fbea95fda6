package templatelimit

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The random functions give the same values on every render (a fresh
// Funcs), different values within one render, in Sprig's alphabets and
// lengths: a chart that names a Pod with randAlphaNum renders the same at
// both revisions of a review.
func TestRandomIsTheSameEveryRender(t *testing.T) {
	src := `{{ randAlphaNum 8 }}|{{ randAlphaNum 8 }}|{{ randAlpha 6 }}|{{ randNumeric 5 }}|{{ randAscii 40 }}|{{ randBytes 9 }}|{{ uuidv4 }}|{{ randInt 10 20 }}|{{ shuffle "abcdefgh" }}|{{ randAlphaNum 0 }}|{{ randAlpha -1 }}`
	first, err := render(t, 1<<20, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		again, err := render(t, 1<<20, src, nil)
		if err != nil || again != first {
			t.Fatalf("a second render gives %q (%v), the first %q", again, err, first)
		}
	}
	parts := strings.Split(first, "|")
	if len(parts) < 11 {
		t.Fatalf("parts %q", parts)
	}
	// randAscii may draw "|": join its part back.
	n := len(parts)
	ascii := strings.Join(parts[4:n-6], "|")
	rest := parts[n-6:]
	checks := []struct {
		got string
		re  string
	}{
		{parts[0], `^[a-zA-Z0-9]{8}$`}, {parts[1], `^[a-zA-Z0-9]{8}$`}, {parts[2], `^[a-zA-Z]{6}$`}, {parts[3], `^[0-9]{5}$`},
		{ascii, `^[ -~]{40}$`}, {rest[0], `^[A-Za-z0-9+/]{12}$`},
		{rest[1], `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`},
		{rest[4], `^$`}, {rest[5], `^$`},
	}
	for _, c := range checks {
		if !regexp.MustCompile(c.re).MatchString(c.got) {
			t.Errorf("%q does not match %s (render %q)", c.got, c.re, first)
		}
	}
	if parts[0] == parts[1] {
		t.Errorf("two calls in one render gave the same %q", parts[0])
	}
	if i, err := strconv.Atoi(rest[2]); err != nil || i < 10 || i >= 20 {
		t.Errorf("randInt 10 20 = %q", rest[2])
	}
	if s := rest[3]; len(s) != 8 || s == "abcdefgh" || !sameLetters(s, "abcdefgh") {
		t.Errorf("shuffle \"abcdefgh\" = %q", s)
	}
	if _, err := render(t, 1<<20, `{{ randInt 5 5 }}`, nil); err == nil || !strings.Contains(err.Error(), "randInt: max 5 is not above min 5") {
		t.Errorf("randInt 5 5: %v", err)
	}
}

func sameLetters(a, b string) bool {
	count := map[rune]int{}
	for _, r := range a {
		count[r]++
	}
	for _, r := range b {
		count[r]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}
