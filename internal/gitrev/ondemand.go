package gitrev

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/routeguard/routeguard/internal/confine"
)

// An OnDemand export writes a revision's tree into a directory piece by
// piece, as renders ask for it, instead of whole: exporting a large
// repository costs a file created per file of the tree (most of a review
// of many small apps on a slow disk), while one app's render reads a few.
//
// What it writes is always a part of what Export writes (the same files,
// links and directories, byte for byte), and it writes, for each
// observation a traced render made (confine.Trace), everything that
// observation depends on: the path's parent directories, the path itself,
// the targets of symbolic links on the way, and for a directory listing
// every entry of the directory. So once every observation of a render has
// been written for (Missing is empty), each came out as it would in the
// full export, and so does the render, which is a function of what it
// observed (the same reasoning routeguard diff's reuse rests on). A render
// that observed what was not there yet is rendered again after Write.
// What no trace can vouch for (an opaque trace, a glob) asks for the rest
// of the tree (Complete).
//
// An OnDemand is safe for concurrent use; Write and Complete should not
// run while a render whose observations are checked reads the directory.
type OnDemand struct {
	repo *Repo
	rev  Revision
	dest string
	max  int64

	// entries holds every path of the tree that Export writes or makes a
	// directory for: a directory only when a file or link is below it
	// (written or not: Export makes the directory of a link it leaves
	// out, not one of submodules only).
	entries  map[string]treeEntry
	children map[string][]string // directory ("." the top) -> entry names, sorted
	indexed  int                 // tree entries read

	mu       sync.Mutex
	written  map[string]bool
	total    int64
	files    int
	complete bool
}

type treeEntry struct {
	mode filemode.FileMode
	hash plumbing.Hash
	link string // a symbolic link's target, read when the tree is indexed
}

// ExportOnDemand indexes rev's tree (its tree objects only, no file
// contents) for writing into dest (which must exist and be empty) as asked
// for; opts.MaxBytes caps what is written.
func (r *Repo) ExportOnDemand(rev Revision, dest string, opts ExportOptions) (*OnDemand, error) {
	c, err := r.repo.CommitObject(plumbing.NewHash(rev.Hash))
	if err != nil {
		return nil, fmt.Errorf("revision %s: %w", rev.Name, err)
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("revision %s: %w", rev.Name, err)
	}
	d := &OnDemand{repo: r, rev: rev, dest: dest, max: cmpOr(opts.MaxBytes, 1<<30),
		entries: map[string]treeEntry{}, children: map[string][]string{}, written: map[string]bool{}}
	if err := d.index(tree, ""); err != nil {
		return nil, err
	}
	for dir, names := range d.children {
		d.children[dir] = slices.DeleteFunc(names, func(n string) bool {
			_, ok := d.entries[path.Join(dir, n)]
			return !ok
		})
	}
	return d, nil
}

func cmpOr(v, def int64) int64 {
	if v <= 0 {
		return def
	}
	return v
}

// index records the entries of t (at dir, "" the top) and below it,
// keeping what Export writes: regular files, links that stay inside the
// tree, and the directories above them.
func (d *OnDemand) index(t *object.Tree, dir string) error {
	parent := dir
	if parent == "" {
		parent = "."
	}
	seen := make(map[string]bool, len(t.Entries))
	for _, e := range t.Entries {
		p := path.Join(dir, e.Name)
		if !safePath(p) {
			return fmt.Errorf("revision %s: unsafe path %q in the tree", d.rev.Name, p)
		}
		if seen[e.Name] {
			// Export refuses a link and a directory of one name (it would
			// write through the link); a crafted tree is refused here too.
			return fmt.Errorf("revision %s: %s: the tree holds two entries of this name", d.rev.Name, p)
		}
		seen[e.Name] = true
		if d.indexed++; d.indexed > maxTreeEntries {
			return fmt.Errorf("revision %s: the tree holds more than %d files and directories, more than routeguard indexes; review a smaller repository or one whose history this is not (a crafted tree can hold millions of empty files)", d.rev.Name, maxTreeEntries)
		}
		d.children[parent] = append(d.children[parent], e.Name)
		switch e.Mode {
		case filemode.Dir:
			sub, err := d.repo.repo.TreeObject(e.Hash)
			if err != nil {
				return fmt.Errorf("revision %s: %s: %w", d.rev.Name, p, err)
			}
			if err := d.index(sub, p); err != nil {
				return err
			}
		case filemode.Regular, filemode.Executable, filemode.Deprecated:
			d.keep(p, treeEntry{mode: e.Mode, hash: e.Hash})
		case filemode.Symlink:
			link, err := d.blob(e.Hash, 4096, nil)
			if err != nil {
				return fmt.Errorf("revision %s: %s: %w", d.rev.Name, p, err)
			}
			target := string(link)
			if path.IsAbs(target) || !safePath(path.Join(path.Dir(p), target)) {
				d.keepDirs(p) // Export leaves it out, but makes its directory
				continue
			}
			d.keep(p, treeEntry{mode: e.Mode, hash: e.Hash, link: target})
		case filemode.Submodule:
		default:
			d.keepDirs(p) // as Export: its directory made, the entry left out
		}
	}
	slices.Sort(d.children[parent])
	return nil
}

// keep records p and the directories above it.
func (d *OnDemand) keep(p string, e treeEntry) {
	d.entries[p] = e
	d.keepDirs(p)
}

// keepDirs records the directories above p.
func (d *OnDemand) keepDirs(p string) {
	for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
		if _, ok := d.entries[dir]; ok {
			break
		}
		d.entries[dir] = treeEntry{mode: filemode.Dir}
	}
}

// blob reads the blob h, of at most max bytes; count, when set, is told
// its size first (and may refuse it).
func (d *OnDemand) blob(h plumbing.Hash, max int64, count func(int64) error) ([]byte, error) {
	b, err := d.repo.repo.BlobObject(h)
	if err != nil {
		return nil, err
	}
	if count != nil {
		if err := count(b.Size); err != nil {
			return nil, err
		}
		max = b.Size
	}
	if b.Size > max {
		return nil, fmt.Errorf("%d bytes, over %d", b.Size, max)
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return io.ReadAll(io.LimitReader(rd, max+1))
}

// Dir is the directory written into.
func (d *OnDemand) Dir() string { return d.dest }

// Complete reports whether the whole tree is written.
func (d *OnDemand) Complete() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.complete
}

// maxTreeEntries bounds the entries of a tree an on-demand export indexes
// (each costs memory before anything is written; the largest public
// monorepos hold a few hundred thousand files). A variable for the tests.
var maxTreeEntries = 1_000_000

// maxLinkHops bounds the links followed resolving one path (as the
// kernel's ELOOP does).
const maxLinkHops = 40

// Missing lists what the observations depend on that is not written yet,
// sorted; all is set when one of them can only be vouched for by the
// whole tree (a glob).
func (d *OnDemand) Missing(obs []confine.Observation) (paths []string, all bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.complete {
		return nil, false
	}
	want := map[string]bool{}
	for _, o := range obs {
		if o.Kind == confine.ObservedGlob {
			return nil, true
		}
		d.need(o.Path, o.Kind == confine.ObservedListing, 0, want)
	}
	for p := range want {
		if !d.written[p] {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	return paths, false
}

// need adds to want the entries that what is seen at p (slash path from
// the top) depends on: each component as far as it exists, the targets of
// links on the way and at the end, and with list the entries of the
// directory p leads to.
func (d *OnDemand) need(p string, list bool, hops int, want map[string]bool) {
	if p == "." || p == "" {
		if list {
			d.needEntries(".", want)
		}
		return
	}
	parts := strings.Split(p, "/")
	cur := ""
	for i, part := range parts {
		cur = path.Join(cur, part)
		e, ok := d.entries[cur]
		if !ok {
			return // absent here as in the full export
		}
		want[cur] = true
		switch e.mode {
		case filemode.Dir:
			continue
		case filemode.Symlink:
			if hops >= maxLinkHops {
				return
			}
			rest := path.Join(append([]string{path.Dir(cur), e.link}, parts[i+1:]...)...)
			d.need(rest, list, hops+1, want)
			return
		default:
			return // a file: the end, or a parent that is not a directory
		}
	}
	if list {
		d.needEntries(cur, want)
	}
}

func (d *OnDemand) needEntries(dir string, want map[string]bool) {
	for _, n := range d.children[dir] {
		want[path.Join(dir, n)] = true
	}
}

// Write writes the entries Missing listed (and the directories above
// them).
func (d *OnDemand) Write(paths []string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	w := newFileWriter(2)
	err := d.write(paths, w)
	if werr := w.wait(); err == nil {
		err = werr
	}
	return err
}

// WriteUnder writes every entry at or below each of rels (slash paths from
// the top; "." the whole tree) and the directories above them: what is
// read of an app path other than by its traced render (its files listed
// when it does not build, CODEOWNERS).
func (d *OnDemand) WriteUnder(rels []string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	want, seen := map[string]bool{}, map[string]bool{}
	for _, rel := range rels {
		d.under(rel, want, seen)
	}
	var paths []string
	for p := range want {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	w := newFileWriter(2)
	err := d.write(paths, w)
	if werr := w.wait(); err == nil {
		err = werr
	}
	if err == nil && slices.Contains(rels, ".") {
		d.complete = true
	}
	return err
}

// under adds rel, what is below it and, for links among them, where they
// lead and what is below that (a walk of the path follows links that stay
// inside the tree) to want; seen holds the links' targets already added.
func (d *OnDemand) under(rel string, want, seen map[string]bool) {
	if rel != "." {
		e, ok := d.entries[rel]
		if !ok {
			return
		}
		want[rel] = true
		if e.mode == filemode.Symlink {
			d.need(rel, false, 0, want)
			if target := path.Join(path.Dir(rel), e.link); !seen[target] {
				seen[target] = true
				d.under(target, want, seen)
			}
		}
		if e.mode != filemode.Dir {
			return
		}
	}
	for _, n := range d.children[rel] {
		d.under(path.Join(rel, n), want, seen)
	}
}

// WriteAll writes the rest of the tree: the directory is then what
// Export writes.
func (d *OnDemand) WriteAll() error { return d.WriteUnder([]string{"."}) }

// write writes paths (sorted, so a directory comes before what is in it)
// that are not written yet; d.mu is held.
func (d *OnDemand) write(paths []string, w *fileWriter) error {
	for _, p := range paths {
		if d.written[p] {
			continue
		}
		e, ok := d.entries[p]
		if !ok {
			continue
		}
		target := filepath.Join(d.dest, filepath.FromSlash(p))
		if err := d.parents(p); err != nil {
			return err
		}
		switch e.mode {
		case filemode.Dir:
			if err := os.Mkdir(target, 0o700); err != nil && !os.IsExist(err) {
				return err
			}
		case filemode.Symlink:
			if err := os.Symlink(e.link, target); err != nil {
				return err
			}
		default:
			var over error
			data, err := d.blob(e.hash, 0, func(size int64) error {
				if d.total += size; d.total > d.max {
					over = fmt.Errorf("revision %s: the tree is larger than %d MiB", d.rev.Name, d.max>>20)
				}
				return over
			})
			if over != nil {
				return over
			}
			if err != nil {
				return fmt.Errorf("revision %s: %s: %w", d.rev.Name, p, err)
			}
			d.files++
			if err := w.write(target, data); err != nil {
				return err
			}
		}
		d.written[p] = true
	}
	return nil
}

// parents makes the directories above p that are not made yet.
func (d *OnDemand) parents(p string) error {
	var todo []string
	for dir := path.Dir(p); dir != "." && !d.written[dir]; dir = path.Dir(dir) {
		todo = append(todo, dir)
	}
	for _, dir := range slices.Backward(todo) {
		if err := os.Mkdir(filepath.Join(d.dest, filepath.FromSlash(dir)), 0o700); err != nil && !os.IsExist(err) {
			return err
		}
		d.written[dir] = true
	}
	return nil
}

// Files is the number of files written so far.
func (d *OnDemand) Files() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.files
}
