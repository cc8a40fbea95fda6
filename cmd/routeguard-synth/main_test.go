package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repo")
	var out, errb bytes.Buffer
	if code := run([]string{"-objects", "1000", "-dangling", "5", "-out", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 15 || !strings.HasPrefix(lines[0], "HTTPRoute team-") {
		t.Fatalf("injected list %q", lines)
	}
	if !strings.Contains(errb.String(), "wrote 9") || !strings.Contains(errb.String(), "15 injected") {
		t.Fatalf("summary %q", errb.String())
	}
	files, _ := os.ReadDir(dir)
	if len(files) < 190 {
		t.Fatalf("%d files", len(files))
	}
	// A second run into the same directory is refused.
	if code := run([]string{"-out", dir}, &out, &errb); code != 2 {
		t.Fatalf("exit %d writing into a non-empty directory", code)
	}
}
