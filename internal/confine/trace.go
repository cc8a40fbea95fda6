package confine

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// A Trace records what a render observed of a root: which files it read,
// which paths it looked at and which directories it listed, as paths
// relative to the root. A render is a function of what it observed: when
// every observation comes out the same on another tree (another revision
// of the repository), rendering there gives the same output, so it need
// not run again (routeguard diff). What a trace cannot vouch for (reads
// outside the root, the network, a child process) makes it opaque.
//
// A Trace is safe for concurrent use; a nil *Trace records nothing.
type Trace struct {
	mu     sync.Mutex
	obs    map[observation]struct{}
	opaque string
}

// NewTrace returns an empty trace.
func NewTrace() *Trace { return &Trace{obs: map[observation]struct{}{}} }

// observation is one thing a render looked at.
type observation struct {
	op   op
	path string // slash-separated, relative to the root
}

type op uint8

const (
	opRead  op = iota // the content of a regular file (or why it cannot be read)
	opStat            // existence, type and size, symlinks followed
	opLstat           // existence and type of the path itself
	opList            // the names and types in a directory
	opGlob            // the matches of a pattern
	opReal            // where the path leads, symlinks resolved
)

func (t *Trace) add(o op, rel string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.obs[observation{o, rel}] = struct{}{}
	t.mu.Unlock()
}

// Opaque marks the trace as not describing everything the render depended
// on, with the reason (the first one is kept).
func (t *Trace) Opaque(reason string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	if t.opaque == "" {
		t.opaque = reason
	}
	t.mu.Unlock()
}

// OpaqueReason is why the trace cannot vouch for the render ("" when it
// can).
func (t *Trace) OpaqueReason() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.opaque
}

// Len is the number of distinct observations.
func (t *Trace) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.obs)
}

// RecordReal records that the render resolved abs (inside the root dir)
// through symbolic links: the same path must lead to the same place in the
// other tree.
func (t *Trace) RecordReal(dir, abs string) {
	if t == nil {
		return
	}
	if rel, ok := relTo(dir, abs); ok {
		t.add(opReal, rel)
	}
}

// SameIn reports whether every observation comes out the same in the trees
// rooted at a and b (directories); when not, it says which one differs.
// An opaque trace is never the same. To compare many traces of the same
// two trees, a Comparer opens them once and sees each observation once.
func (t *Trace) SameIn(a, b string) (bool, string) {
	c, err := NewComparer(a, b)
	if err != nil {
		return false, err.Error()
	}
	defer c.Close()
	return c.Same(t)
}

// A Comparer compares traces between two trees, remembering what it saw.
// It is safe for concurrent use.
type Comparer struct {
	a, b *Root
	mu   sync.Mutex
	seen map[observation]bool
}

// NewComparer opens the trees rooted at a and b.
func NewComparer(a, b string) (*Comparer, error) {
	ra, err := Open(a)
	if err != nil {
		return nil, err
	}
	rb, err := Open(b)
	if err != nil {
		ra.Close()
		return nil, err
	}
	return &Comparer{a: ra, b: rb, seen: map[observation]bool{}}, nil
}

// Close releases the trees.
func (c *Comparer) Close() {
	c.a.Close()
	c.b.Close()
}

// Same reports whether every observation of t comes out the same in both
// trees; when not, it names the first (in path order) that differs. An
// opaque trace is never the same.
func (c *Comparer) Same(t *Trace) (bool, string) {
	if r := t.OpaqueReason(); r != "" {
		return false, r
	}
	t.mu.Lock()
	obs := make([]observation, 0, len(t.obs))
	for o := range t.obs {
		obs = append(obs, o)
	}
	t.mu.Unlock()
	// In a fixed order, so that the difference named is always the same.
	slices.SortFunc(obs, func(x, y observation) int {
		if c := strings.Compare(x.path, y.path); c != 0 {
			return c
		}
		return int(x.op) - int(y.op)
	})
	for _, o := range obs {
		if !c.same(o) {
			return false, o.String()
		}
	}
	return true, ""
}

func (c *Comparer) same(o observation) bool {
	c.mu.Lock()
	same, ok := c.seen[o]
	c.mu.Unlock()
	if ok {
		return same
	}
	same = c.a.observe(o) == c.b.observe(o)
	c.mu.Lock()
	c.seen[o] = same
	c.mu.Unlock()
	return same
}

func (o observation) String() string {
	return [...]string{"content of", "type of", "type of", "listing of", "matches of", "target of"}[o.op] + " " + o.path
}

// maxObservedBytes caps what observe reads of one file: a larger one is
// seen by its size only, and no render reads it (over every file limit).
const maxObservedBytes = 1 << 30

// observe returns what o sees in r, as a comparable string. Errors are
// part of what is seen (a file missing on one side and present on the
// other differs), reduced to their kind so that paths in messages do not.
func (r *Root) observe(o observation) string {
	switch o.op {
	case opRead:
		// One walk of the path: open (without blocking, should it be a
		// FIFO; a tree exported from git holds none), then look at what
		// was opened.
		f, err := r.fsys.OpenFile(o.path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return "error " + errKind(err)
		}
		defer f.Close()
		fi, err := f.Stat()
		switch {
		case err != nil:
			return "error " + errKind(err)
		case !fi.Mode().IsRegular():
			return "not a file: " + fi.Mode().Type().String()
		case fi.Size() > maxObservedBytes:
			return fmt.Sprintf("file %d", fi.Size())
		}
		h := sha256.New()
		if _, err := io.Copy(h, io.LimitReader(f, maxObservedBytes+1)); err != nil {
			return "error " + errKind(err)
		}
		return fmt.Sprintf("%x", h.Sum(nil))
	case opStat, opLstat:
		var fi fs.FileInfo
		var err error
		if o.op == opStat {
			fi, err = r.fsys.Stat(o.path)
		} else {
			fi, err = r.fsys.Lstat(o.path)
		}
		if err != nil {
			return "error " + errKind(err)
		}
		if fi.Mode().IsRegular() {
			return fmt.Sprintf("file %d", fi.Size())
		}
		return fi.Mode().Type().String()
	case opList:
		entries, err := fs.ReadDir(r.fsys.FS(), o.path)
		if err != nil {
			return "error " + errKind(err)
		}
		var b strings.Builder
		for _, e := range entries {
			if e.Name() == ".git" { // absent from exported revisions
				continue
			}
			fmt.Fprintf(&b, "%s\x00%s\x00", e.Name(), e.Type())
		}
		return b.String()
	case opGlob:
		m, err := fs.Glob(r.fsys.FS(), o.path)
		if err != nil {
			return "error " + errKind(err)
		}
		m = slices.DeleteFunc(m, hasGitComponent)
		return strings.Join(m, "\x00")
	case opReal:
		real, err := filepath.EvalSymlinks(r.Abs(o.path))
		if err != nil {
			return "error " + errKind(err)
		}
		if rel, ok := relTo(r.real, real); ok {
			return rel
		}
		return "outside"
	}
	return "unknown"
}

func errKind(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "not-exist"
	case errors.Is(err, fs.ErrPermission):
		return "permission"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return "other"
}

// SetTrace makes r record what it is asked into t (nil: stop recording).
// Not safe to call while r is in use.
func (r *Root) SetTrace(t *Trace) { r.trace = t }
