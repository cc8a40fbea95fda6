package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestExamplesParse(t *testing.T) {
	files, err := filepath.Glob("../../examples/apps/*/*/.routeguard.yaml")
	if err != nil || len(files) < 3 {
		t.Fatalf("found %d example configs (%v)", len(files), err)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(p, data); err != nil {
			t.Error(err)
		}
	}
}
