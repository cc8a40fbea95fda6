// Package precision runs the routeguard binary on fixture repositories
// shaped after public GitOps repositories (none of their files copied):
// each test names the shape and fails without the behaviour it guards — a
// false error, a misleading message, or a silent pass routeguard used to
// give on such repositories.
package precision

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/test/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }

// fixture copies testdata/<name> into a fresh directory (a git top level,
// so that the repository root is found) and returns it.
func fixture(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("testdata", name)
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dst, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

type result struct {
	stdout, stderr string
	code           int
}

// routeguard runs the binary in dir.
func routeguard(t *testing.T, dir string, args ...string) result {
	t.Helper()
	r := harness.Run(t, harness.Options{Dir: dir}, args...)
	return result{r.Stdout, r.Stderr, r.Code}
}

// lines returns the lines of s holding every one of parts.
func lines(s string, parts ...string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		ok := true
		for _, p := range parts {
			if !strings.Contains(l, p) {
				ok = false
				break
			}
		}
		if ok && l != "" {
			out = append(out, l)
		}
	}
	return out
}

func contains(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

func lacks(t *testing.T, what, s string, nots ...string) {
	t.Helper()
	for _, n := range nots {
		if strings.Contains(s, n) {
			t.Errorf("%s holds %q:\n%s", what, n, s)
		}
	}
}
