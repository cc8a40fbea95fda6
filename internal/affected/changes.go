package affected

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/confine"
)

// Changes are the paths (slash-separated, relative to the repository
// root) that differ between two revisions: files whose content or type
// differ or that exist at one revision only, directories that exist at
// one revision only, and symbolic links whose target differs. Paths
// reached through an unchanged symbolic link to a changed directory are
// listed under the link's name too (a render reads them by that name).
type Changes struct {
	paths []string // sorted, unique
	set   map[string]bool
	// links: a symbolic link changed (Between)
	links bool
}

// LinksChanged reports whether a symbolic link was added, removed or
// retargeted (Between only): a render that resolved it read through it
// under other names, so callers build everything.
func (c *Changes) LinksChanged() bool { return c.links }

// Add returns c with paths added.
func (c *Changes) Add(paths []string) *Changes {
	out := NewChanges(append(slices.Clone(c.paths), paths...))
	out.links = c.links
	return out
}

// Missing returns the paths of c that other lacks.
func (c *Changes) Missing(other *Changes) []string {
	var out []string
	for _, p := range c.paths {
		if !other.set[p] {
			out = append(out, p)
		}
	}
	return out
}

// NewChanges makes Changes from paths (cleaned, sorted, made unique).
func NewChanges(paths []string) *Changes {
	c := &Changes{set: map[string]bool{}}
	for _, p := range paths {
		p = path.Clean(p)
		if !c.set[p] {
			c.set[p] = true
			c.paths = append(c.paths, p)
		}
	}
	slices.Sort(c.paths)
	return c
}

// Paths are the changed paths, sorted.
func (c *Changes) Paths() []string { return c.paths }

// Len is the number of changed paths.
func (c *Changes) Len() int { return len(c.paths) }

// Has reports whether p itself changed.
func (c *Changes) Has(p string) bool { return c.set[p] }

// Under returns the changed paths at or below dir ("." for all).
func (c *Changes) Under(dir string) []string {
	if dir == "." || dir == "" {
		return c.paths
	}
	i, _ := slices.BinarySearch(c.paths, dir)
	var out []string
	for ; i < len(c.paths); i++ {
		p := c.paths[i]
		if p == dir || strings.HasPrefix(p, dir+"/") {
			out = append(out, p)
			continue
		}
		if p > dir+"/" && !strings.HasPrefix(p, dir) {
			break
		}
	}
	return out
}

// maxChangedPaths bounds what a comparison lists (with link aliases).
const maxChangedPaths = 1 << 20

// ErrTooManyChanges says the changed paths (with their link aliases)
// passed maxChangedPaths: the caller builds everything.
var ErrTooManyChanges = errors.New("more than a million changed paths (with the names symbolic links give them)")

// Between compares the trees rooted at a and b (leaving out .git),
// reading each file through the confined reader, at most maxFile bytes of
// it (a larger file of the same size at both is counted as changed: no
// render reads it whole).
func Between(a, b string, maxFile int64) (*Changes, error) {
	ta, err := snapshot(a, maxFile)
	if err != nil {
		return nil, err
	}
	tb, err := snapshot(b, maxFile)
	if err != nil {
		return nil, err
	}
	var changed []string
	for p, ea := range ta.entries {
		eb, ok := tb.entries[p]
		if !ok || ea != eb {
			changed = append(changed, p)
		}
	}
	for p := range tb.entries {
		if _, ok := ta.entries[p]; !ok {
			changed = append(changed, p)
		}
	}
	aliased, err := withLinkAliases(changed, ta.links, tb.links)
	if err != nil {
		return nil, err
	}
	out := NewChanges(aliased)
	for _, p := range changed {
		if strings.HasPrefix(ta.entries[p], "l") || strings.HasPrefix(tb.entries[p], "l") {
			out.links = true
		}
	}
	return out, nil
}

// tree is what Between sees of one tree: an entry per path ("f" and a
// digest for a file, "d" a directory, "l" and the target for a link), and
// the links.
type tree struct {
	entries map[string]string
	links   map[string]string // link path -> its target, resolved to a slash path in the tree
}

func snapshot(dir string, maxFile int64) (*tree, error) {
	r, err := confine.Open(dir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	t := &tree{entries: map[string]string{}, links: map[string]string{}}
	err = r.Walk(r.Dir(), confine.WalkOptions{}, func(rel string, fi fs.FileInfo) error {
		if rel == "." {
			return nil
		}
		if len(t.entries) >= maxChangedPaths {
			return ErrTooManyChanges
		}
		switch {
		case fi.IsDir():
			t.entries[rel] = "d"
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(r.Abs(rel))
			if err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			t.entries[rel] = "l" + target
			if !path.IsAbs(target) {
				if to := path.Join(path.Dir(rel), target); to != ".." && !strings.HasPrefix(to, "../") {
					t.links[rel] = to
				}
			}
		case fi.Mode().IsRegular():
			if fi.Size() > maxFile {
				t.entries[rel] = "big " + dir // never equal between two trees: counted as changed
				return nil
			}
			data, err := r.ReadFile(r.Abs(rel), maxFile)
			if err != nil {
				return err
			}
			t.entries[rel] = "f" + digest(data)
		default:
			t.entries[rel] = "other " + fi.Mode().Type().String()
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("comparing revisions: %w", err)
	}
	return t, nil
}

// withLinkAliases adds, for each link (at either revision) into a
// directory holding changed paths, the same paths under the link's name,
// links of links included (a few rounds; more would be a cycle).
func withLinkAliases(changed []string, links ...map[string]string) ([]string, error) {
	seen := map[string]bool{}
	for _, p := range changed {
		seen[p] = true
	}
	out := slices.Clone(changed)
	frontier := changed
	for round := 0; round < 8 && len(frontier) > 0; round++ {
		var next []string
		for _, m := range links {
			for link, to := range m {
				for _, p := range frontier {
					if rest, ok := strings.CutPrefix(p, to+"/"); ok || to == "." {
						if to == "." {
							rest = p
						}
						alias := path.Join(link, rest)
						if !seen[alias] {
							seen[alias] = true
							next = append(next, alias)
						}
					}
				}
			}
		}
		out = append(out, next...)
		if len(out) > maxChangedPaths {
			return nil, ErrTooManyChanges
		}
		frontier = next
	}
	return out, nil
}

// ParseList reads a list of changed paths (--changed-files): one path
// per line, relative to the repository root ("./" and a leading "/"
// allowed), blank lines and lines starting with # ignored. name is the
// file's name for errors, which give its line.
func ParseList(r io.Reader, name string) (*Changes, error) {
	var paths []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<10)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(strings.TrimSuffix(sc.Text(), "\r"))
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		if strings.IndexByte(s, 0) >= 0 {
			return nil, fmt.Errorf("%s:%d: %q is not a slash-separated path relative to the repository root", name, line, s)
		}
		p := path.Clean(strings.TrimPrefix(s, "/"))
		if p == ".." || strings.HasPrefix(p, "../") {
			return nil, fmt.Errorf("%s:%d: %q is outside the repository; list paths relative to its root (git diff --name-only prints them so)", name, line, s)
		}
		if p == ".git" || strings.HasPrefix(p, ".git/") {
			continue
		}
		paths = append(paths, p)
		if len(paths) > maxChangedPaths {
			return nil, fmt.Errorf("%s:%d: %w", name, line, ErrTooManyChanges)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return NewChanges(paths), nil
}
