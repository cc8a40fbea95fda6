package istio

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
)

func TestExplore(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, f := range files {
		data, _ := os.ReadFile(f)
		objs, err := manifest.Decode(f, data)
		if err != nil {
			t.Fatal(err)
		}
		for _, unbacked := range []bool{false, true} {
			fs, err := Analyze(context.Background(), objs, Options{ReportUnbackedPodMessages: unbacked})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("== %s unbacked=%v", f, unbacked)
			for _, x := range fs {
				t.Logf("%s %s %s %s %s", x.Source, x.Code, x.Severity, x.Object, x.Message)
			}
		}
	}
}
