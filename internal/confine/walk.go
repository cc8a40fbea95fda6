package confine

import (
	"fmt"
	"io/fs"
	"path"
)

// maxWalkDepth bounds the directories a walk descends (symlinked
// directories may form cycles inside the root).
const maxWalkDepth = 64

// WalkFunc is called for each file and directory of a walk with its path
// relative to the walk's start (slash-separated, "." for the start) and its
// info (symlinks followed when Follow is set).
type WalkFunc func(rel string, fi fs.FileInfo) error

// WalkOptions tune Walk.
type WalkOptions struct {
	// Follow descends into symlinked directories and reports symlinked
	// files with their target's info (as Helm's chart loader does);
	// without it symlinks are reported as they are and not descended.
	Follow bool
}

// SkipDir, returned by a WalkFunc for a directory, skips it.
var SkipDir = fs.SkipDir

// Walk walks the tree at dir (inside the root) in lexical order, leaving
// out .git. Symlinks followed stay inside the root; a walk deeper than 64
// directories (a symlink cycle) is an error.
func (r *Root) Walk(dir string, opts WalkOptions, fn WalkFunc) error {
	start, err := r.Rel(dir)
	if err != nil {
		return err
	}
	r.trace.add(opStat, start)
	fi, err := r.fsys.Stat(start)
	if err != nil {
		return r.explain(start, err)
	}
	return r.walk(start, ".", fi, opts, fn, 0)
}

func (r *Root) walk(start, rel string, fi fs.FileInfo, opts WalkOptions, fn WalkFunc, depth int) error {
	if err := fn(rel, fi); err != nil {
		if err == SkipDir && fi.IsDir() {
			return nil
		}
		return err
	}
	if !fi.IsDir() {
		return nil
	}
	if depth >= maxWalkDepth {
		return fmt.Errorf("%s: more than %d directories deep (a symlink cycle?)", path.Join(start, rel), maxWalkDepth)
	}
	full := path.Join(start, rel)
	r.trace.add(opList, full)
	entries, err := r.readDir(full)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		child := path.Join(rel, e.Name())
		var info fs.FileInfo
		if e.Type()&fs.ModeSymlink != 0 && opts.Follow {
			r.trace.add(opStat, path.Join(start, child))
			info, err = r.fsys.Stat(path.Join(start, child))
		} else {
			info, err = e.Info()
		}
		if err != nil {
			return r.explain(path.Join(start, child), err)
		}
		if err := r.walk(start, child, info, opts, fn, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// Glob returns the paths matching pattern (absolute, or relative to the
// working directory; path.Match syntax per element) inside the root, as
// absolute paths, leaving out .git.
func (r *Root) Glob(pattern string) ([]string, error) {
	rel, err := r.Rel(pattern)
	if err != nil {
		return nil, err
	}
	r.trace.add(opGlob, rel)
	matches, err := fs.Glob(r.fsys.FS(), rel)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pattern, err)
	}
	out := make([]string, 0, len(matches))
	for _, m := range matches {
		if !hasGitComponent(m) {
			out = append(out, r.Abs(m))
		}
	}
	return out, nil
}

// FS returns the root as a confined fs.FS (paths relative to the root, "/"
// separated), for matchers that take one (doublestar globs). Unlike Walk
// and Glob it does not hide .git: callers leave it out.
func (r *Root) FS() fs.FS {
	r.trace.Opaque("read through an fs.FS, which is not traced")
	return r.fsys.FS()
}
