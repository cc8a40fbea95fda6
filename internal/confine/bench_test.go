package confine

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadFile reads one small file through the root (what every
// manifest read costs), and BenchmarkOpenedPath the .git check alone (a
// readlink of /proc/self/fd) that it includes.
func BenchmarkReadFile(b *testing.B) {
	dir := b.TempDir()
	p := filepath.Join(dir, "a", "b", "cm.yaml")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p, make([]byte, 1500), 0o644); err != nil {
		b.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	b.Run("ReadFile", func(b *testing.B) {
		for b.Loop() {
			if _, err := r.ReadFile(p, 1<<20); err != nil {
				b.Fatal(err)
			}
		}
	})
	f, err := os.Open(p)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.Run("OpenedPath", func(b *testing.B) {
		for b.Loop() {
			if _, ok := openedPath(f); !ok {
				b.Fatal("no path")
			}
		}
	})
}
