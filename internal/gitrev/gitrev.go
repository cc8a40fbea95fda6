// Package gitrev reads revisions of a git repository from its objects with
// go-git: no git binary, no hooks, no filters or attributes, nothing the
// repository's configuration names is run. Export writes the tree of one
// commit into a directory so the renderers can read it like a checkout.
package gitrev

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Repo is an opened repository.
type Repo struct {
	repo *git.Repository
	// Root is the top directory of the work tree.
	Root string
}

// Revision is a resolved commit.
type Revision struct {
	Hash string // full hex hash
	Name string // what it was resolved from, for messages
}

// Open opens the repository holding dir (dir or a parent of it; linked
// work trees are followed to their common git directory).
func Open(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	r, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("%s: not in a git repository (%w); run routeguard diff inside a clone", dir, err)
	}
	wt, err := r.Worktree()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return &Repo{repo: r, Root: wt.Filesystem.Root()}, nil
}

// Resolve resolves a revision (branch, tag, hash, HEAD~1, origin/main) to a
// commit.
func (r *Repo) Resolve(rev string) (Revision, error) {
	h, err := r.repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		if hint := r.shallowHint(); hint != "" {
			return Revision{}, fmt.Errorf("revision %q is not in this clone (%v): %s", rev, err, hint)
		}
		return Revision{}, fmt.Errorf("revision %q names no commit of this repository (%w); name a branch, tag or commit", rev, err)
	}
	if _, err := r.repo.CommitObject(*h); err != nil {
		return Revision{}, fmt.Errorf("revision %q is not a commit: %w", rev, err)
	}
	return Revision{Hash: h.String(), Name: rev}, nil
}

// shallowHint says, for a shallow clone (.git/shallow lists the commits
// whose parents were left out), what to fetch so that revisions before
// them are there; "" for a full clone.
func (r *Repo) shallowHint() string {
	cut, err := r.repo.Storer.Shallow()
	if err != nil || len(cut) == 0 {
		return ""
	}
	return fmt.Sprintf("it is a shallow clone (.git/shallow cuts the history at %d commits), so older commits are not here; "+
		"fetch them (git fetch --deepen=50, or git fetch origin <base-branch>, or --unshallow), "+
		"or clone deeper: actions/checkout fetch-depth: 2 for a pull request's merge commit (--base HEAD^1), 0 for the merge base; "+
		"GitLab: GIT_DEPTH: 0, or git fetch origin $CI_MERGE_REQUEST_DIFF_BASE_SHA and --base $CI_MERGE_REQUEST_DIFF_BASE_SHA", len(cut))
}

// defaultBranches are tried in order for the default base.
var defaultBranches = []string{"refs/remotes/origin/HEAD", "refs/remotes/origin/main", "refs/remotes/origin/master", "refs/heads/main", "refs/heads/master"}

// DefaultBase is the merge base of HEAD and the default branch (origin's
// HEAD, else origin/main, origin/master, main, master); HEAD itself when
// there is no such branch or HEAD is on it.
func (r *Repo) DefaultBase() (Revision, error) {
	head, err := r.Resolve("HEAD")
	if err != nil {
		return Revision{}, err
	}
	hc, err := r.repo.CommitObject(plumbing.NewHash(head.Hash))
	if err != nil {
		return Revision{}, err
	}
	for _, name := range defaultBranches {
		ref, err := r.repo.Reference(plumbing.ReferenceName(name), true)
		if err != nil {
			continue
		}
		bc, err := r.repo.CommitObject(ref.Hash())
		if err != nil {
			continue
		}
		bases, err := hc.MergeBase(bc)
		if err != nil || len(bases) == 0 {
			// On a shallow clone the merge base may be one of the commits
			// left out: HEAD as the base would compare HEAD with itself
			// and find no change, a silent pass.
			if hint := r.shallowHint(); hint != "" {
				return Revision{}, fmt.Errorf("the merge base of HEAD and %s is not in this clone: %s", ref.Name().Short(), hint)
			}
			continue
		}
		short := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(name, "refs/remotes/"), "refs/heads/"), "refs/")
		return Revision{Hash: bases[0].Hash.String(), Name: "merge-base(HEAD, " + short + ")"}, nil
	}
	head.Name = "HEAD"
	return head, nil
}

// ExportOptions limit an export.
type ExportOptions struct {
	// MaxBytes caps the bytes written (0: 1 GiB).
	MaxBytes int64
}

// Export writes the files of rev's tree under dest (which must exist and be
// empty). Symbolic links are written only when they stay inside the tree;
// submodules are left out (as an Argo CD or Flux checkout without
// submodules has them). It returns how many files it wrote.
func (r *Repo) Export(rev Revision, dest string, opts ExportOptions) (int, error) {
	limit := opts.MaxBytes
	if limit <= 0 {
		limit = 1 << 30
	}
	c, err := r.repo.CommitObject(plumbing.NewHash(rev.Hash))
	if err != nil {
		return 0, fmt.Errorf("revision %s: %w", rev.Name, err)
	}
	tree, err := c.Tree()
	if err != nil {
		return 0, fmt.Errorf("revision %s: %w", rev.Name, err)
	}
	var total int64
	n := 0
	// Directories made and links written, in memory: a parent is checked
	// without a system call, and each directory is made once. Files are
	// written by two workers while the tree is read (blob decompression
	// and the writes' system calls overlap).
	dirs := map[string]bool{".": true}
	links := map[string]bool{}
	w := newFileWriter(2)
	err = tree.Files().ForEach(func(f *object.File) error {
		if !safePath(f.Name) {
			return fmt.Errorf("revision %s: unsafe path %q in the tree", rev.Name, f.Name)
		}
		target := filepath.Join(dest, filepath.FromSlash(f.Name))
		if underLink(links, f.Name) {
			// A crafted tree can hold a symbolic link and a directory of
			// the same name; nothing is written through a link.
			return fmt.Errorf("revision %s: %s: a parent directory is a symbolic link in the tree", rev.Name, f.Name)
		}
		if dir := path.Dir(f.Name); !dirs[dir] {
			if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
				return err
			}
			for d := dir; d != "." && !dirs[d]; d = path.Dir(d) {
				dirs[d] = true
			}
		}
		total += f.Size
		if total > limit {
			return fmt.Errorf("revision %s: the tree is larger than %d MiB", rev.Name, limit>>20)
		}
		switch f.Mode {
		case filemode.Symlink:
			link, err := f.Contents()
			if err != nil {
				return err
			}
			if path.IsAbs(link) || !safePath(path.Join(path.Dir(f.Name), link)) {
				return nil // would leave the tree: the confined reader refuses it anyway
			}
			links[f.Name] = true
			return os.Symlink(link, target)
		case filemode.Regular, filemode.Executable, filemode.Deprecated:
		default:
			return nil
		}
		rd, err := f.Reader()
		if err != nil {
			return fmt.Errorf("revision %s: %s: %w", rev.Name, f.Name, err)
		}
		data, err := io.ReadAll(io.LimitReader(rd, f.Size+1))
		rd.Close()
		if err != nil {
			return fmt.Errorf("revision %s: %s: %w", rev.Name, f.Name, err)
		}
		n++
		return w.write(target, data)
	})
	if werr := w.wait(); err == nil {
		err = werr
	}
	return n, err
}

// underLink reports whether a parent of the slash path rel is among the
// symbolic links written.
func underLink(links map[string]bool, rel string) bool {
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		if links[d] {
			return true
		}
	}
	return false
}

// fileWriter writes files with a few workers; the first error is kept and
// stops further writes.
type fileWriter struct {
	jobs chan fileJob
	wg   sync.WaitGroup
	mu   sync.Mutex
	err  error
}

type fileJob struct {
	target string
	data   []byte
}

func newFileWriter(workers int) *fileWriter {
	jobs := make(chan fileJob, 64)
	w := &fileWriter{jobs: jobs}
	for range workers {
		w.wg.Go(func() {
			for j := range jobs { // not w.jobs: wait sets it to nil
				if w.failed() {
					continue
				}
				if err := writeNew(j.target, j.data); err != nil {
					w.mu.Lock()
					if w.err == nil {
						w.err = err
					}
					w.mu.Unlock()
				}
			}
		})
	}
	return w
}

func (w *fileWriter) failed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err != nil
}

func (w *fileWriter) write(target string, data []byte) error {
	if w.failed() {
		return w.wait()
	}
	w.jobs <- fileJob{target, data}
	return nil
}

// wait waits for the writes (once) and returns the first error.
func (w *fileWriter) wait() error {
	if w.jobs != nil {
		close(w.jobs)
		w.jobs = nil
		w.wg.Wait()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// writeNew creates target, which must not exist (O_EXCL: never through a
// link), with data.
func writeNew(target string, data []byte) error {
	f, err := os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// safePath reports whether a slash path from a tree stays inside it.
func safePath(p string) bool {
	if p == "" || path.IsAbs(p) || strings.Contains(p, "\\") {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." || part == "" || strings.EqualFold(part, ".git") {
			return false
		}
	}
	return true
}

// RemoteURLs lists the URLs of the repository's remotes (its clone's
// origin and any other), from its configuration; nil when it has none or
// dir is not in a repository.
func RemoteURLs(dir string) []string {
	r, err := Open(dir)
	if err != nil {
		return nil
	}
	// Only dir's own repository: a directory inside another repository's
	// work tree (a fixture, a vendored tree) does not have its remotes.
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	root, err := filepath.EvalSymlinks(r.Root)
	if err != nil || root != abs {
		return nil
	}
	remotes, err := r.repo.Remotes()
	if err != nil {
		return nil
	}
	var out []string
	for _, rm := range remotes {
		out = append(out, rm.Config().URLs...)
	}
	return out
}
