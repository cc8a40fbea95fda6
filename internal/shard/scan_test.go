package shard

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMentions(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write := func(dir, name, text string) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "apps", "web"), "a.yaml", "kind: ConfigMap\n")
	write(filepath.Join(root, "apps", "web", "sub"), "b.yaml", "apiVersion: kustomize.toolkit.fluxcd.io/v1\n")
	write(filepath.Join(root, "apps", "plain"), "a.yaml", "kind: Service\n")
	write(outside, "x.yaml", "fluxcd\n")
	if err := os.Symlink(filepath.Join(outside, "x.yaml"), filepath.Join(root, "apps", "plain", "link.yaml")); err != nil {
		t.Fatal(err)
	}
	opts := ScanOptions{MaxFiles: 100, MaxFileBytes: 1 << 20}
	for _, tc := range []struct {
		dir  string
		opts ScanOptions
		want bool
	}{
		{filepath.Join(root, "apps", "web"), opts, true},                                              // in a subdirectory
		{filepath.Join(root, "apps", "plain"), opts, false},                                           // the link out is not read
		{filepath.Join(root, "apps", "plain"), ScanOptions{MaxFiles: 1, MaxFileBytes: 1 << 20}, true}, // past the bound
		{filepath.Join(root, "missing"), opts, false},
		{filepath.Join(root, "missing"), ScanOptions{MaxFiles: 100, MaxFileBytes: 1 << 20, Unreadable: true}, true},
	} {
		if got := Mentions(root, tc.dir, tc.opts, "fluxcd"); got != tc.want {
			t.Errorf("Mentions(%s, %+v) = %v, want %v", tc.dir, tc.opts, got, tc.want)
		}
	}
}
