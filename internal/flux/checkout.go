package flux

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fluxcd/pkg/sourceignore"
	"github.com/fluxcd/pkg/sourceignore/gitignore"

	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// sourceArtifact returns a copy of dir as source-controller archives it
// for a GitRepository, which is what kustomize-controller builds from:
// regular files only, without what .sourceignore files and spec.ignore
// exclude (VCS files always; source-controller's defaults, CI files,
// images and archives, when neither says anything). Patterns are relative
// to the repository root, as in the artifact.
func (b *workspace) sourceArtifact(dir string, gr *manifest.Object) (string, error) {
	ignore, set := "", false
	if gr != nil {
		ignore, set = field.Get(gr.Body, "spec", "ignore").(string)
	}
	key := fmt.Sprintf("artifact %q %v %q", dir, set, ignore)
	v, err := b.memo(key, func() (any, error) {
		ps, err := sourceignore.LoadIgnorePatterns(dir, nil)
		if err != nil {
			return nil, fmt.Errorf("reading .sourceignore files: %w", err)
		}
		if set {
			ps = append(ps, sourceignore.ReadPatterns(strings.NewReader(ignore), nil)...)
		}
		matcher := sourceignore.NewDefaultMatcher(ps, nil)
		if len(ps) > 0 {
			matcher = sourceignore.NewMatcher(append(sourceignore.VCSPatterns(nil), ps...))
		}
		dst, err := b.scratch("checkout")
		if err != nil {
			return nil, err
		}
		b.mu.Lock()
		if b.checkouts == nil {
			b.checkouts = map[string]string{}
		}
		b.checkouts[dst] = dir
		b.mu.Unlock()
		return dst, copyFiltered(dir, dst, matcher, b.maxFile(), b.oversized.add)
	})
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

// copyFiltered copies the regular files under src that matcher does not
// exclude into dst, hard-linking where it can. A file over max bytes is
// copied empty and passed to oversized (its path in dst, its size): what
// reads it refuses it by name, and a huge file costs neither disk nor
// memory. Like source-controller's
// Storage.Archive, it walks into excluded directories too and judges each
// file on its own: with spec.ignore "/*" then "!/clusters/prod", the
// directory clusters is excluded but clusters/prod/... is archived (the
// last matching pattern wins for each path).
func copyFiltered(src, dst string, matcher gitignore.Matcher, max int64, oversized func(string, int64)) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || rel == "." {
			return err
		}
		parts := strings.Split(rel, string(filepath.Separator))
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir // VCS patterns exclude everything in it
			}
			if matcher.Match(parts, true) {
				return nil // its files are judged one by one
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() || matcher.Match(parts, false) {
			return nil
		}
		target := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if fi, err := d.Info(); err == nil && fi.Size() > max {
			oversized(target, fi.Size())
			return os.WriteFile(target, nil, 0o644)
		}
		if err := os.Link(p, target); err == nil {
			return nil
		}
		return copyFile(p, target)
	})
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return errors.Join(out.Close())
}
