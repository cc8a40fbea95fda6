package confine

import (
	"fmt"
	"os"
	"path/filepath"
)

// notInGit refuses f, opened as rel, when its real path (every symlink on
// the way resolved, as os.Root resolved them) lies under a .git directory
// of the root: a chart file or a Kustomize input that is a symlink to
// ../.git/config (where actions/checkout leaves the job's token) reads
// nothing. Rel refuses .git spelled in a path; this catches it reached
// through a symlink.
func (r *Root) notInGit(f *os.File, rel string) error {
	real, ok := openedPath(f)
	if !ok {
		var err error
		if real, err = filepath.EvalSymlinks(r.Abs(rel)); err != nil {
			return r.explain(rel, err)
		}
	}
	inside, ok := relTo(r.real, real)
	if !ok {
		// os.Root resolved it inside the root: only a rename while
		// reading gets here.
		return fmt.Errorf("%s: a symlink on the way leads %w (%s)", rel, ErrOutside, r.real)
	}
	if hasGitComponent(inside) {
		return fmt.Errorf("%s: a symlink on the way leads to %s, %w", rel, inside, ErrGitDir)
	}
	return nil
}
