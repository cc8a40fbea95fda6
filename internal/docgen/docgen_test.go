package docgen

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDocsUpToDate fails when a generated region differs from what the code
// says; run `go generate ./internal/docgen` to update it.
func TestDocsUpToDate(t *testing.T) {
	for _, r := range Regions() {
		cur, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(r.File)))
		if err != nil {
			t.Fatal(err)
		}
		want, err := r.Render(cur)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(cur, want) {
			t.Errorf("%s: region %s is out of date; run go generate ./internal/docgen", r.File, r.Name)
		}
	}
}

func TestRenderRegion(t *testing.T) {
	r := Region{File: "x.md", Name: "n", Generate: func() (string, error) { return "new\n", nil }}
	got, err := r.Render([]byte("a\n" + begin("n") + "old\n" + end("n") + "b\n"))
	if err != nil || string(got) != "a\n"+begin("n")+"new\n"+end("n")+"b\n" {
		t.Fatalf("got %q, %v", got, err)
	}
	if _, err := r.Render([]byte("no markers\n")); err == nil {
		t.Fatal("a file without the region must be an error, not silently skipped")
	}
}
