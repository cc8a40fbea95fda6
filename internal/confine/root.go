package confine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/guard"
)

// ErrOutside is wrapped by every error about a path outside the root.
var ErrOutside = errors.New("outside the repository root")

// ErrGitDir is wrapped by errors about paths under .git/.
var ErrGitDir = errors.New("inside .git, which routeguard never reads")

// ErrNotRegular is wrapped by errors about devices, FIFOs and sockets.
var ErrNotRegular = errors.New("not a regular file")

// Root is a directory tree opened for confined reading.
type Root struct {
	dir  string // absolute, as given (cleaned)
	real string // absolute, symlinks resolved
	fsys *os.Root
	// trace, when set, records what is asked (SetTrace).
	trace *Trace
}

// Open opens dir as a root.
func Open(dir string) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("repository root %s: %w", dir, err)
	}
	fsys, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("repository root %s: %w", dir, err)
	}
	return &Root{dir: filepath.Clean(abs), real: real, fsys: fsys}, nil
}

// Close releases the root's directory handle.
func (r *Root) Close() error { return r.fsys.Close() }

// Dir is the root directory, absolute, symlinks resolved.
func (r *Root) Dir() string { return r.real }

// Rel returns p (absolute, or relative to the working directory) as a
// slash-separated path relative to the root, refusing paths that are
// lexically outside it and paths under .git. "." is the root itself.
func (r *Root) Rel(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rel, ok := relTo(r.real, abs)
	if !ok {
		rel, ok = relTo(r.dir, abs)
	}
	if !ok {
		return "", fmt.Errorf("%s: %w (%s); move the file into the repository or set --repo-root", p, ErrOutside, r.real)
	}
	if hasGitComponent(rel) {
		return "", fmt.Errorf("%s: %w", rel, ErrGitDir)
	}
	return rel, nil
}

func relTo(dir, abs string) (string, bool) {
	rel, err := filepath.Rel(dir, abs)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

func hasGitComponent(rel string) bool {
	for _, c := range strings.Split(rel, "/") {
		if c == ".git" {
			return true
		}
	}
	return false
}

// Display shows p relative to the root when it is inside, else as given.
func (r *Root) Display(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if rel, ok := relTo(r.real, abs); ok {
		return rel
	}
	if rel, ok := relTo(r.dir, abs); ok {
		return rel
	}
	return p
}

// Abs returns the absolute path of rel (relative to the root).
func (r *Root) Abs(rel string) string { return filepath.Join(r.real, filepath.FromSlash(rel)) }

// explain turns os.Root's errors into messages that say what to do.
func (r *Root) explain(rel string, err error) error {
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w", rel, fs.ErrNotExist)
	case errors.As(err, &pe) && (strings.Contains(pe.Err.Error(), "escapes") || strings.Contains(pe.Err.Error(), "outside")):
		return fmt.Errorf("%s: a symlink on the way leads %w (%s); routeguard follows only relative symlinks that stay inside the repository",
			rel, ErrOutside, r.real)
	}
	return fmt.Errorf("%s: %w", rel, err)
}

// Stat returns the file info of p, following symlinks inside the root.
func (r *Root) Stat(p string) (fs.FileInfo, error) {
	rel, err := r.Rel(p)
	if err != nil {
		return nil, err
	}
	r.trace.add(opStat, rel)
	fi, err := r.fsys.Stat(rel)
	if err != nil {
		return nil, r.explain(rel, err)
	}
	return fi, nil
}

// Lstat returns the file info of p itself (a symlink is not followed).
func (r *Root) Lstat(p string) (fs.FileInfo, error) {
	rel, err := r.Rel(p)
	if err != nil {
		return nil, err
	}
	r.trace.add(opLstat, rel)
	fi, err := r.fsys.Lstat(rel)
	if err != nil {
		return nil, r.explain(rel, err)
	}
	return fi, nil
}

// ReadFile reads the regular file p, refusing files over max bytes.
func (r *Root) ReadFile(p string, max int64) ([]byte, error) {
	f, rel, err := r.open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, r.explain(rel, err)
	}
	if fi.Size() > max {
		return nil, tooBig(rel, fi.Size(), max)
	}
	// The size can change, or lie (files under /proc report 0): never read
	// more than max whatever it said.
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, r.explain(rel, err)
	}
	if int64(len(data)) > max {
		return nil, tooBig(rel, int64(len(data)), max)
	}
	guard.Reading(rel, len(data))
	return data, nil
}

func tooBig(rel string, size, max int64) error {
	return fmt.Errorf("%s: file is %d bytes, over the %s limit for one file; split it, or raise --max-file-size", rel, size, human(max))
}

func human(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Open opens the regular file p for reading.
func (r *Root) Open(p string) (*os.File, error) {
	f, _, err := r.open(p)
	return f, err
}

func (r *Root) open(p string) (*os.File, string, error) {
	rel, err := r.Rel(p)
	if err != nil {
		return nil, "", err
	}
	r.trace.add(opRead, rel)
	// Stat before opening: opening a FIFO blocks, opening a device may do
	// anything.
	fi, err := r.fsys.Stat(rel)
	if err != nil {
		return nil, rel, r.explain(rel, err)
	}
	if fi.IsDir() {
		return nil, rel, fmt.Errorf("%s: is a directory, not a file", rel)
	}
	if !fi.Mode().IsRegular() {
		return nil, rel, fmt.Errorf("%s: %w (%s); routeguard reads only regular files", rel, ErrNotRegular, fi.Mode().Type())
	}
	f, err := r.fsys.Open(rel)
	if err != nil {
		return nil, rel, r.explain(rel, err)
	}
	if err := r.notInGit(f, rel); err != nil {
		f.Close()
		return nil, rel, err
	}
	return f, rel, nil
}

// ReadDir lists the directory p, sorted by name, leaving out .git.
func (r *Root) ReadDir(p string) ([]fs.DirEntry, error) {
	rel, err := r.Rel(p)
	if err != nil {
		return nil, err
	}
	r.trace.add(opList, rel)
	fi, err := r.fsys.Stat(rel)
	if err != nil {
		return nil, r.explain(rel, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", rel)
	}
	entries, err := r.readDir(rel)
	if err != nil {
		return nil, err
	}
	out := entries[:0]
	for _, e := range entries {
		if e.Name() != ".git" {
			out = append(out, e)
		}
	}
	return out, nil
}

// readDir lists the directory rel, sorted by name, refusing a directory
// that a symlink on the way leads into .git.
func (r *Root) readDir(rel string) ([]fs.DirEntry, error) {
	d, err := r.fsys.Open(rel)
	if err != nil {
		return nil, r.explain(rel, err)
	}
	defer d.Close()
	if err := r.notInGit(d, rel); err != nil {
		return nil, err
	}
	entries, err := d.ReadDir(-1)
	if err != nil {
		return nil, r.explain(rel, err)
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// Exists reports whether p exists inside the root (following symlinks).
func (r *Root) Exists(p string) bool {
	_, err := r.Stat(p)
	return err == nil
}

// IsDir reports whether p is a directory inside the root.
func (r *Root) IsDir(p string) bool {
	fi, err := r.Stat(p)
	return err == nil && fi.IsDir()
}
