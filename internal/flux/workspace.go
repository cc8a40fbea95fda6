package flux

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	securejoin "github.com/cyphar/filepath-securejoin"
)

func (b *workspace) cleanup() {
	for _, f := range slices.Backward(b.cleanups) {
		f()
	}
}

// scratch returns a new empty directory for assembled artifacts.
func (b *workspace) scratch(name string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tmp == "" {
		d, err := os.MkdirTemp("", "routeguard-flux-")
		if err != nil {
			return "", err
		}
		b.tmp = d
		b.cleanups = append(b.cleanups, func() { os.RemoveAll(d) })
	}
	return os.MkdirTemp(b.tmp, safeName.ReplaceAllString(name, "_")+"-")
}

// repoPaths names files in msg as the user knows them: a file of a
// filtered copy (the checkout Kustomize builds in, under the temporary
// directory) by its path in the source directory, and a file of this
// checkout by its path in the repository.
func (b *workspace) repoPaths(msg string) string {
	b.mu.Lock()
	copies := slices.SortedFunc(maps.Keys(b.checkouts), func(x, y string) int { return len(y) - len(x) })
	for _, c := range copies {
		msg = strings.ReplaceAll(msg, c+string(filepath.Separator), b.checkouts[c]+string(filepath.Separator))
		msg = strings.ReplaceAll(msg, c, b.checkouts[c])
	}
	b.mu.Unlock()
	return strings.ReplaceAll(msg, b.root+string(filepath.Separator), "")
}

var safeName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// memo runs build once per key, sharing its result between workers.
func (b *workspace) memo(key string, build func() (any, error)) (any, error) {
	b.mu.Lock()
	e, ok := b.memos[key]
	if !ok {
		e = &memoEntry{}
		b.memos[key] = e
	}
	b.mu.Unlock()
	e.once.Do(func() { e.v, e.err = build() })
	return e.v, e.err
}

// inCheckout reports whether a spec.path is a directory of this checkout.
func (b *workspace) inCheckout(p string) bool {
	dir, err := securejoin.SecureJoin(b.root, filepath.FromSlash(p))
	if err != nil {
		return false
	}
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}
