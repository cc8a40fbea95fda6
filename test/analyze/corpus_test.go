package analyze

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/test/harness"
)

// TestCorpusHasNoErrors runs `routeguard analyze` (the built binary) over
// every app of test/corpus: valid apps shaped after public GitOps
// repositories (home labs on Flux and Argo CD, company repositories, the
// Gateway API implementations' examples; each file says which shape it
// follows). A valid app must give no error: a false error blocks a team's
// deploys. An app's ARGS file holds the flags its reconciler implies (the
// namespace Flux's targetNamespace sets, a Helm release name).
func TestCorpusHasNoErrors(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(harness.RepoRoot, "test", "corpus", "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		n++
		rel, _ := filepath.Rel(harness.RepoRoot, dir)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			args := []string{rel}
			if b, err := os.ReadFile(filepath.Join(dir, "ARGS")); err == nil {
				args = append(strings.Fields(string(b)), rel)
			}
			fs, code, stderr := analyze(t, args...)
			if code != 0 {
				t.Errorf("exit %d; stderr: %s", code, stderr)
			}
			for _, f := range fs {
				if f.Severity == "error" {
					t.Errorf("%s:%d: %s: %s", f.File, f.Line, f.key(), f.Message)
				}
			}
		})
	}
	if n < 30 {
		t.Errorf("found %d corpus apps, want at least 30", n)
	}
}
