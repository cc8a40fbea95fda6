package render

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/routeguard/routeguard/internal/confine"
)

// editFS is the file system KustomizeOptions.Edit works on: relative paths
// start at the app directory (as `kustomize edit` run there sees them),
// reads are confined to the repository, and writes land in memory, where
// the build that follows reads them. The repository is never written.
type editFS struct {
	root *root
	dir  string
	max  int64

	mu      sync.Mutex
	written map[string][]byte // absolute path -> content
}

var _ filesys.FileSystem = (*editFS)(nil)

func newEditFS(r *root, appDir string, max int64) *editFS {
	return &editFS{root: r, dir: appDir, max: max, written: map[string][]byte{}}
}

func (e *editFS) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(e.dir, p)
}

func (e *editFS) overlay() map[string][]byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string][]byte, len(e.written))
	for k, v := range e.written {
		out[k] = v
	}
	return out
}

func (e *editFS) ReadFile(p string) ([]byte, error) {
	a := e.abs(p)
	e.mu.Lock()
	data, ok := e.written[a]
	e.mu.Unlock()
	if ok {
		return append([]byte(nil), data...), nil
	}
	return e.root.readFile(a, e.max)
}

func (e *editFS) WriteFile(p string, data []byte) error {
	a := e.abs(p)
	if !within(a, e.dir) {
		return fmt.Errorf("%s: kustomize edit may only write in the app directory", e.root.rel(a))
	}
	e.mu.Lock()
	e.written[a] = append([]byte(nil), data...)
	e.mu.Unlock()
	return nil
}

func (e *editFS) stat(p string) (fs.FileInfo, error) {
	real, err := e.root.resolve(e.abs(p))
	if err != nil {
		return nil, err
	}
	return e.root.Stat(real)
}

func (e *editFS) Exists(p string) bool {
	e.mu.Lock()
	_, ok := e.written[e.abs(p)]
	e.mu.Unlock()
	if ok {
		return true
	}
	_, err := e.stat(p)
	return err == nil
}

func (e *editFS) IsDir(p string) bool {
	fi, err := e.stat(p)
	return err == nil && fi.IsDir()
}

// Glob matches on disk and answers in the form it was asked: relative
// patterns give paths relative to the app directory, as `kustomize edit
// add component ../x` records them.
func (e *editFS) Glob(pattern string) ([]string, error) {
	matches, err := e.root.Glob(e.abs(pattern))
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(matches))
	for _, m := range matches {
		if _, err := e.root.resolve(m); err != nil {
			return nil, err
		}
		if !filepath.IsAbs(pattern) {
			if rel, err := filepath.Rel(e.dir, m); err == nil {
				m = rel
			}
		}
		out = append(out, m)
	}
	sort.Strings(out)
	return out, nil
}

func (e *editFS) ReadDir(p string) ([]string, error) {
	real, err := e.root.resolve(e.abs(p))
	if err != nil {
		return nil, err
	}
	entries, err := e.root.ReadDir(real)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, en := range entries {
		names[i] = en.Name()
	}
	return names, nil
}

func (e *editFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	a := e.abs(p)
	if _, err := e.root.resolve(a); err != nil {
		return "", "", err
	}
	if e.IsDir(a) {
		return filesys.ConfirmedDir(a), "", nil
	}
	return filesys.ConfirmedDir(filepath.Dir(a)), filepath.Base(a), nil
}

func (e *editFS) Walk(p string, fn filepath.WalkFunc) error {
	real, err := e.root.resolve(e.abs(p))
	if err != nil {
		return err
	}
	return e.root.Walk(real, confine.WalkOptions{}, func(rel string, fi fs.FileInfo) error {
		err := fn(filepath.Join(real, filepath.FromSlash(rel)), fi, nil)
		if err == filepath.SkipDir {
			return confine.SkipDir
		}
		return err
	})
}

func (e *editFS) Open(p string) (filesys.File, error) {
	return nil, e.unsupported("open", p)
}
func (e *editFS) Create(p string) (filesys.File, error) { return nil, e.unsupported("create", p) }
func (e *editFS) Mkdir(p string) error                  { return e.unsupported("mkdir", p) }
func (e *editFS) MkdirAll(p string) error               { return e.unsupported("mkdir", p) }
func (e *editFS) RemoveAll(p string) error              { return e.unsupported("remove", p) }

func (e *editFS) unsupported(op, p string) error {
	return errors.New(op + " " + e.root.rel(e.abs(p)) + ": not possible while editing a kustomization (routeguard keeps the repository read-only)")
}
