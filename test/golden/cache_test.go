package golden

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/resultcache"
)

// TestValidationCacheReplay: every analyze run of the golden files (the
// examples, the corpus, the synthetic repository), run twice with one
// --cache-dir, prints its golden file both times: cold (validating, and
// keeping the results) and warm (every result read back: the warm run
// writes no entry). A warm run that printed anything else would be a
// cache that changes verdicts.
func TestValidationCacheReplay(t *testing.T) {
	var runs []run
	for _, r := range append(appRuns(), analyzeRuns()...) {
		if len(r.args) > 0 && r.args[0] == "analyze" {
			runs = append(runs, r)
		}
	}
	if len(runs) < 50 {
		t.Fatalf("only %d analyze runs", len(runs))
	}
	for k, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			want, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(r.name)+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(fix.dir, "cache", r.name)
			cached := r
			cached.args = append([]string{"analyze", "--cache-dir", dir}, r.args[1:]...)
			var before map[string]fs.FileInfo
			for pass, i := range []int{100000 + 2*k, 100001 + 2*k} {
				if pass == 1 {
					before = cacheFiles(t, dir)
				}
				got := execute(t, i, cached)
				if body(got) != body(want) {
					t.Errorf("%s run with --cache-dir differs from the golden file:\n%s", []string{"cold", "warm"}[pass], lineDiff(body(want), body(got)))
				}
			}
			after := cacheFiles(t, dir)
			for name, info := range after {
				if b, ok := before[name]; !ok || !os.SameFile(b, info) {
					t.Errorf("the warm run wrote %s: a result was not read back", name)
				}
			}
			if n, err := resultcache.Count(dir, resultcache.Options{}); r.name == "analyze/synth" && (err != nil || n < 500 || len(after) != 1) {
				t.Errorf("the synthetic repository left %d entries in %d files (%v), want one per validated object in one pack", n, len(after), err)
			}
		})
	}
}

// body is a golden file without its first line (the command line).
func body(b []byte) string {
	_, rest, _ := bytes.Cut(b, []byte("\n"))
	return string(rest)
}

func cacheFiles(t *testing.T, dir string) map[string]fs.FileInfo {
	t.Helper()
	out := map[string]fs.FileInfo{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".tmp-") {
			return nil
		}
		if info, err := d.Info(); err == nil {
			out[p] = info
		}
		return nil
	})
	return out
}
