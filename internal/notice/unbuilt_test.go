package notice

import (
	"bytes"
	"strings"
	"testing"
)

// A part not built says so on stderr in one bounded line, whatever the
// length of the names the repository gave it (an Application named with
// 30,000 characters, a path as long), each cut with a count, and with its
// control characters escaped.
func TestWriteUnbuiltBounded(t *testing.T) {
	long := strings.Repeat("x", 30000)
	var b bytes.Buffer
	WriteUnbuilt(&b, []Unbuilt{{What: "Application argocd/\x1b[2K" + long, Where: "apps/" + long + ".yaml:3",
		Why: "fails to build: " + long, RoutingFiles: []string{"apps/" + long + "/route.yaml", "b.yaml"}}}, 20)
	out := b.String()
	if n := strings.Count(out, "\n"); n != 1 {
		t.Fatalf("%d lines, want 1:\n%.500s", n, out)
	}
	if len(out) > 4*maxUnbuiltChars+300 {
		t.Errorf("the line is %d bytes", len(out))
	}
	if n := strings.Count(out, " characters)"); n != 4 {
		t.Errorf("%d cuts counted, want 4 (name, place, reason, file):\n%.2000s", n, out)
	}
	for _, want := range []string{`routeguard: not built: Application argocd/\x1b[2Kxxx`, "…(+29,723 characters)", ", b.yaml"} {
		if !strings.Contains(out, want) {
			t.Errorf("the line lacks %q:\n%.2000s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("the line carries a raw escape:\n%q", out)
	}
}
