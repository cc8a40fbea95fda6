package argocd

import (
	"cmp"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/routeguard/routeguard/internal/confine"
)

// NormalizeRepoURL reduces a git repository URL to host/path, lower case,
// without scheme, user, ".git" and trailing slashes, so that the https and
// ssh (also scp-like git@host:path) forms of one repository compare equal.
func NormalizeRepoURL(u string) string {
	s := strings.TrimSpace(strings.ToLower(u))
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	} else if at := strings.Index(s, "@"); at >= 0 && strings.Contains(s[at:], ":") {
		// scp-like: git@host:org/repo
		s = strings.Replace(s, ":", "/", 1)
	}
	if at := strings.Index(s, "@"); at >= 0 && at < strings.Index(s+"/", "/") {
		s = s[at+1:]
	}
	if host, rest, ok := strings.Cut(s, "/"); ok {
		if h, _, ok := strings.Cut(host, ":"); ok && isPort(host[len(h)+1:]) {
			host = h // ssh://host:22/org/repo
		}
		s = host + "/" + rest
	}
	s = strings.TrimRight(s, "/")
	s = strings.TrimSuffix(s, ".git")
	return strings.TrimRight(s, "/")
}

func isPort(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// thisRepo is the checkout: which repoURLs name it, and its files for the
// git generator. Every read is confined to the root.
type thisRepo struct {
	root string
	cr   *confine.Root   // every read of the checkout goes through it
	urls map[string]bool // normalized
	max  int64
}

func (r *thisRepo) IsThis(repoURL string) bool {
	return repoURL != "" && r.urls[NormalizeRepoURL(repoURL)]
}

// Directories lists the checkout's directories as Argo CD's
// GetGitDirectories does: relative, hidden ones (and what is below them)
// left out, symlinks not followed, lexical order.
func (r *thisRepo) Directories() ([]string, error) {
	var out []string
	err := r.cr.Walk(r.root, confine.WalkOptions{}, func(rel string, fi fs.FileInfo) error {
		if !fi.IsDir() || rel == "." {
			return nil
		}
		if strings.HasPrefix(path.Base(rel), ".") {
			return confine.SkipDir
		}
		out = append(out, rel)
		return nil
	})
	return out, err
}

// Files returns the files a git generator's file pattern names. Argo CD's
// default is `git ls-files -- <pattern>`: a pattern without wildcards
// names a file or everything under a directory, and a wildcard matches
// across "/" (git's pathspec). With newGlobbing (Argo CD's
// applicationset.enable.new.git.file.globbing) it is a doublestar glob.
// Files whose real path leaves the repository are left out, as Argo CD
// does; .git is never read.
func (r *thisRepo) Files(pattern string, newGlobbing bool) (map[string][]byte, error) {
	var rels []string
	if newGlobbing {
		matches, err := doublestar.Glob(r.cr.FS(), strings.TrimPrefix(pattern, "/"), doublestar.WithFilesOnly())
		if err != nil {
			return nil, fmt.Errorf("git generator file pattern %q: %w", pattern, err)
		}
		rels = matches
	} else {
		match, err := pathspec(pattern)
		if err != nil {
			return nil, err
		}
		err = r.cr.Walk(r.root, confine.WalkOptions{}, func(rel string, fi fs.FileInfo) error {
			if !fi.IsDir() && match(rel) {
				rels = append(rels, rel)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	out := map[string][]byte{}
	for _, rel := range rels {
		if rel == ".git" || strings.HasPrefix(rel, ".git/") {
			continue
		}
		p := filepath.Join(r.root, filepath.FromSlash(rel))
		if fi, err := r.cr.Stat(p); err != nil || !fi.Mode().IsRegular() {
			continue // leads out of the repository, or not a file
		}
		data, err := r.cr.ReadFile(p, r.max)
		if err != nil {
			return nil, fmt.Errorf("git generator: %w", err)
		}
		out[rel] = data
	}
	return out, nil
}

// pathspec compiles a git pathspec (default magic): literal prefixes name
// a file or a directory; *, ? and [...] match any character, "/" too.
func pathspec(pattern string) (func(string) bool, error) {
	p := strings.TrimPrefix(pattern, "./")
	p = strings.TrimPrefix(p, "/")
	if p == "" || p == "." {
		return func(string) bool { return true }, nil
	}
	if !strings.ContainsAny(p, "*?[") {
		p = strings.TrimSuffix(p, "/")
		return func(f string) bool { return f == p || strings.HasPrefix(f, p+"/") }, nil
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			j := strings.IndexByte(p[i:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := p[i+1 : i+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("git generator file pattern %q: %w", pattern, err)
	}
	return re.MatchString, nil
}

func inside(p, root string) bool {
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

// inferRepoURLs picks the repoURL that means "this repository" when none
// is given: of the git sources (no chart) of the manifests found, the URL
// whose paths exist in the checkout most often.
func inferRepoURLs(cr *confine.Root, root string, sources []Source) (string, int, int) {
	hits, total := map[string]int{}, map[string]int{}
	orig := map[string]string{}
	for _, s := range sources {
		if s.Chart != "" || s.RepoURL == "" || strings.HasPrefix(s.RepoURL, "oci://") {
			continue
		}
		n := NormalizeRepoURL(s.RepoURL)
		total[n]++
		if _, ok := orig[n]; !ok {
			orig[n] = s.RepoURL
		}
		p := strings.Trim(s.Path, "/")
		if p == "" || p == "." {
			continue
		}
		if cr.IsDir(filepath.Join(root, filepath.FromSlash(p))) {
			hits[n]++
		}
	}
	best := ""
	for _, n := range slices.Sorted(maps.Keys(hits)) {
		if best == "" || hits[n] > hits[best] {
			best = n
		}
	}
	if best == "" {
		return "", 0, 0
	}
	return cmp.Or(orig[best], best), hits[best], total[best]
}

// resolve returns the real path of p (absolute, or relative to the root),
// refusing paths whose real location leaves the repository. A path that
// does not exist resolves lexically (callers report "not found").
func (r *thisRepo) resolve(p string) (string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.root, p)
	}
	p = filepath.Clean(p)
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		real = p
		for dir, rest := p, ""; ; {
			parent := filepath.Dir(dir)
			rest = filepath.Join(filepath.Base(dir), rest)
			if parent == dir {
				break
			}
			if rp, err := filepath.EvalSymlinks(parent); err == nil {
				real = filepath.Join(rp, rest)
				break
			}
			dir = parent
		}
	}
	if !inside(real, r.root) {
		return "", fmt.Errorf("%s is outside the repository", r.rel(p))
	}
	return real, nil
}

// read reads a file of the repository (confined, size-limited).
func (r *thisRepo) read(p string) ([]byte, error) {
	real, err := r.resolve(p)
	if err != nil {
		return nil, err
	}
	return r.cr.ReadFile(real, r.max)
}

// rel shows p relative to the root when it is inside.
func (r *thisRepo) rel(p string) string {
	if rel, err := filepath.Rel(r.root, p); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return p
}
