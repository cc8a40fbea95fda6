package flux

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/routeguard/routeguard/internal/guard"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Every file a Flux build reads is a regular file read through a limit
// (Options.MaxFileBytes): a sparse 1 GiB file, a FIFO or a device must
// not cost its size in memory. Files of the filtered copies that are over
// the limit are copied empty and remembered (oversized): reading one is an
// error naming it, listing it is not (a large file nothing reads does not
// fail a build, as it does not fail kustomize-controller's).

func (b *workspace) maxFile() int64 {
	if b.maxFileBytes > 0 {
		return b.maxFileBytes
	}
	return manifest.DefaultMaxFileBytes
}

// oversizedFiles are the files of the filtered copies left empty, by
// absolute path, with their real size.
type oversizedFiles struct {
	mu    sync.Mutex
	sizes map[string]int64
}

func (o *oversizedFiles) add(p string, size int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.sizes == nil {
		o.sizes = map[string]int64{}
	}
	o.sizes[p] = size
}

func (o *oversizedFiles) size(p string) (int64, bool) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return 0, false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	n, ok := o.sizes[abs]
	return n, ok
}

func tooLarge(name string, size, max int64) error {
	return fmt.Errorf("%s: file is %d bytes, over the %d MiB limit for one file; split it, or leave it out of what Kustomize reads",
		name, size, max>>20)
}

// check refuses p (a path of a filtered copy or of a source directory)
// when it is over the limit or not a regular file.
func (b *workspace) check(p string) error {
	if size, ok := b.oversized.size(p); ok {
		return tooLarge(p, size, b.maxFile())
	}
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (%s); routeguard reads only regular files", p, fi.Mode().Type())
	}
	if fi.Size() > b.maxFile() {
		return tooLarge(p, fi.Size(), b.maxFile())
	}
	return nil
}

// readRegular reads the regular file p (name in messages) through the
// limit: its size is checked before reading, and the read stops past the
// limit whatever the size said. It counts as input (guard.Reading).
func readRegular(p, name string, max int64) ([]byte, error) {
	data, err := readLimited(p, name, max)
	if err != nil {
		return nil, err
	}
	guard.Reading(name, len(data))
	return data, nil
}

// readLimited is readRegular without counting the bytes as input: for a
// scan that keeps one file at a time (the Flux version scan), which must
// not raise the memory ceiling by what it reads.
func readLimited(p, name string, max int64) ([]byte, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s); routeguard reads only regular files", name, fi.Mode().Type())
	}
	if fi.Size() > max {
		return nil, tooLarge(name, fi.Size(), max)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, tooLarge(name, int64(len(data)), max)
	}
	return data, nil
}

// limitFS is the file system Kustomize builds on: reads through the limit.
type limitFS struct {
	filesys.FileSystem
	b *workspace
	// display names a file for the guard's message (its path in the
	// repository rather than in the copy).
	display func(string) string
}

func (l limitFS) ReadFile(p string) ([]byte, error) {
	max := l.b.maxFile()
	if size, ok := l.b.oversized.size(p); ok {
		return nil, tooLarge(p, size, max)
	}
	// One call through the secure file system (each resolves the path
	// again): open, then judge the open file. What it holds are copies
	// made of regular files, so opening cannot block on a FIFO.
	f, err := l.FileSystem.Open(p)
	if err != nil {
		return l.FileSystem.ReadFile(p) // its own error, in its words
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	switch {
	case fi.IsDir():
		return l.FileSystem.ReadFile(p) // Kustomize's own error
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s: not a regular file (%s); routeguard reads only regular files", p, fi.Mode().Type())
	case fi.Size() > max:
		return nil, tooLarge(p, fi.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, tooLarge(p, int64(len(data)), max)
	}
	guard.Reading(l.display(p), len(data))
	return data, nil
}

// checkKustomizationFile refuses a kustomization file in dir that is over
// the limit (Flux's generator reads it without one, and would see the
// empty copy).
func (b *workspace) checkKustomizationFile(dir string) error {
	for _, n := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
		p := filepath.Join(dir, n)
		if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
			return b.check(p)
		}
	}
	return nil
}
