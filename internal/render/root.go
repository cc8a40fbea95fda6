package render

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// root confines file access to one directory tree, symlinks included.
type root struct {
	dir   string   // absolute, symlinks resolved
	extra []string // further readable trees (Kustomize's temporary Helm directory)
}

func newRoot(dir string, extra ...string) (*root, error) {
	real, err := realDir(dir)
	if err != nil {
		return nil, fmt.Errorf("repository root %s: %w", dir, err)
	}
	r := &root{dir: real}
	for _, e := range extra {
		if re, err := realDir(e); err == nil {
			r.extra = append(r.extra, re)
		}
	}
	return r, nil
}

func realDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// FindRepoRoot returns the nearest directory at or above path (a directory,
// or a file's directory) holding .git, or that directory itself.
func FindRepoRoot(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		abs = filepath.Dir(abs)
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return abs, nil
		}
	}
}

// errOutside is wrapped by every confinement error.
var errOutside = errors.New("outside the repository root")

// resolve returns the real path of p, refusing paths (or symlink targets)
// outside the root. A path that does not exist resolves lexically, so that
// callers get their own "not found" error.
func (r *root) resolve(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		real = r.resolveMissing(abs)
	}
	if !r.contains(real) {
		return "", fmt.Errorf("%s: %w (%s); move the file into the repository or set --repo-root", r.rel(abs), errOutside, r.dir)
	}
	return real, nil
}

// resolveMissing resolves the longest existing prefix of abs, so that a
// missing file under a symlinked directory is still checked.
func (r *root) resolveMissing(abs string) string {
	dir, rest := abs, ""
	for {
		parent := filepath.Dir(dir)
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if parent == filepath.Dir(parent) {
			return abs
		}
	}
}

func (r *root) contains(real string) bool {
	if within(real, r.dir) {
		return true
	}
	for _, e := range r.extra {
		if within(real, e) {
			return true
		}
	}
	return false
}

func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// rel shows p relative to the root when it is inside, else as given.
func (r *root) rel(p string) string {
	if rel, err := filepath.Rel(r.dir, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}

// readFile reads a confined file, refusing files over max bytes.
func (r *root) readFile(p string, max int64) ([]byte, error) {
	real, err := r.resolve(p)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.rel(p), err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, not a file", r.rel(p))
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s: file is %d bytes, over the %d MiB limit for one manifest file; split it, or raise --max-file-size",
			r.rel(p), fi.Size(), max>>20)
	}
	return os.ReadFile(real)
}

// checkTree refuses symlinks under dir that lead outside the root (Helm's
// chart loader follows symlinks, so a chart could otherwise read any file).
func (r *root) checkTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if _, err := r.resolve(p); err != nil {
				return fmt.Errorf("symlink %w", err)
			}
		}
		return nil
	})
}
