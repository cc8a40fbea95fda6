package render

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/manifest"
)

// root confines file access to one repository (internal/confine), plus
// further readable trees (Kustomize's temporary Helm directory, for the
// helm shim).
type root struct {
	*confine.Root
	dir   string          // absolute, symlinks resolved
	extra []*confine.Root // read-only extras, tried after the repository
	// maxFile caps one file read (0: manifest.DefaultMaxFileBytes).
	maxFile int64
	// trace records what the render observes of the repository
	// (Options.Trace; nil records nothing).
	trace *confine.Trace
}

// setTrace makes the repository reads record into t; reads of the extra
// trees are not traced, so a render that may make them is opaque.
func (r *root) setTrace(t *confine.Trace) {
	r.trace = t
	r.SetTrace(t)
	if len(r.extra) > 0 {
		t.Opaque("reads outside the repository (" + r.extra[0].Dir() + ")")
	}
}

func (r *root) maxFileBytes() int64 {
	if r.maxFile > 0 {
		return r.maxFile
	}
	return manifest.DefaultMaxFileBytes
}

func newRoot(dir string, extra ...string) (*root, error) {
	c, err := confine.Open(dir)
	if err != nil {
		return nil, err
	}
	r := &root{Root: c, dir: c.Dir()}
	for _, e := range extra {
		if ec, err := confine.Open(e); err == nil {
			r.extra = append(r.extra, ec)
		}
	}
	return r, nil
}

// close releases the directory handles.
func (r *root) close() {
	r.Close()
	for _, e := range r.extra {
		e.Close()
	}
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
var errOutside = confine.ErrOutside

// resolve returns the real path of p (symlinks resolved), refusing paths
// (or symlink targets) outside the root and under .git. A path that does
// not exist resolves lexically, so that callers get their own "not found"
// error. It names things; reads go through the confined root as well.
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
		real = resolveMissing(abs)
	}
	if !r.contains(real) {
		return "", fmt.Errorf("%s: %w (%s); move the file into the repository or set --repo-root", r.rel(abs), errOutside, r.dir)
	}
	r.trace.RecordReal(r.dir, abs)
	if rel, err := r.Rel(real); err != nil && errors.Is(err, confine.ErrGitDir) {
		return "", fmt.Errorf("%s: %w", rel, err)
	}
	return real, nil
}

// resolveMissing resolves the longest existing prefix of abs, so that a
// missing file under a symlinked directory is still checked.
func resolveMissing(abs string) string {
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
		if within(real, e.Dir()) {
			return true
		}
	}
	return false
}

func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// rel shows p relative to the root when it is inside, else as given.
func (r *root) rel(p string) string { return r.Display(p) }

// readFile reads a confined file, refusing files over max bytes.
func (r *root) readFile(p string, max int64) ([]byte, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, err
	}
	for _, e := range r.extra {
		if within(abs, e.Dir()) {
			return e.ReadFile(abs, max)
		}
	}
	return r.ReadFile(abs, max)
}
