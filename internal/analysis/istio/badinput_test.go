package istio

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
)

func TestBadKinds(t *testing.T) {
	fs, err := Analyze(context.Background(), load(t, "bad-kinds.yaml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"IST0106 error Service shop/svc testdata/bad-kinds.yaml:3",
		"IST0106 error Deployment shop/web testdata/bad-kinds.yaml:11",
		"IST0106 error DestinationRule shop/dr testdata/bad-kinds.yaml:23",
		"IST0106 error Gateway shop/gw testdata/bad-kinds.yaml:32",
		"IST0106 error Namespace shop testdata/bad-kinds.yaml:39",
	}
	if got := summary(fs); !slices.Equal(got, want) {
		t.Fatalf("findings:\n got %q\nwant %q", got, want)
	}
}

// Every fixture of every analyzer package (and the examples), alone and all
// together: Istio's analyzers never fail or panic on them.
func TestEveryFixture(t *testing.T) {
	var files []string
	for _, g := range []string{"../*/testdata/*.yaml", "../*/testdata/*/*.yaml", "../../../examples/*/*/*.yaml", "../../../examples/*/*.yaml"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("only %d fixtures found: %v", len(files), files)
	}
	var all []*manifest.Object
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := manifest.Decode(f, data)
		if err != nil {
			continue // fixtures of the decoder's own errors
		}
		if _, err := Analyze(context.Background(), objs, Options{}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		all = append(all, objs...)
	}
	if _, err := Analyze(context.Background(), all, Options{}); err != nil {
		t.Errorf("all fixtures together: %v", err)
	}
}
