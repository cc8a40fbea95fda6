package notice

import (
	"bytes"
	"strings"
	"testing"
)

// Repository text in a notice cannot move the cursor or end the line;
// plain text is printed as it is.
func TestWriteEscapes(t *testing.T) {
	var b bytes.Buffer
	Write(&b, []Notice{Notef("file %s", "a\x1b[2Jb\nc"), Warningf("plain %d", 1), {Level: Error, Text: "x"}})
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 || strings.ContainsRune(b.String(), '\x1b') {
		t.Fatalf("got %q: want three lines, no escape character", b.String())
	}
	if !strings.HasPrefix(lines[0], "routeguard: note: file a") || lines[1] != "routeguard: warning: plain 1" || lines[2] != "routeguard: error: x" {
		t.Errorf("got %q", lines)
	}
}
