package render

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// Kustomize's warnings come out sorted whatever order parallel renders
// raise them in, each once, before the next line routeguard writes itself,
// and the rest at restore.
func TestKustomizeWarningsSorted(t *testing.T) {
	warn := func(s string) string { return "# Warning: '" + s + "' is deprecated.\n" }
	for _, order := range [][]string{{"b", "a", "c"}, {"c", "b", "a", "b"}} {
		var out strings.Builder
		stderr, restore := KustomizeWarnings(&out)
		for _, w := range order[:2] {
			fmt.Fprint(os.Stderr, warn(w))
		}
		fmt.Fprint(stderr, "routeguard: note: own line\n")
		for _, w := range order[2:] {
			fmt.Fprint(os.Stderr, warn(w))
		}
		restore()
		first := "routeguard: kustomize: warning: '%s' is deprecated.\n"
		a, b := order[0], order[1]
		if b < a {
			a, b = b, a
		}
		want := fmt.Sprintf(first, a) + fmt.Sprintf(first, b) + "routeguard: note: own line\n"
		for _, w := range order[2:] {
			if w != order[0] && w != order[1] {
				want += fmt.Sprintf(first, w)
			}
		}
		if out.String() != want {
			t.Errorf("order %v:\n%s\nwant\n%s", order, out.String(), want)
		}
	}
}
