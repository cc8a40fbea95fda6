package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/test/harness"
)

// TestRecordedComparisonError: docs/cmp.md shows the ComparisonError that
// compat/argocd records from argocd-cmp-server (the doc test compares the
// page with the file); here the routeguard part of that record is compared
// with what `routeguard cmp generate` prints now, run as the sidecar runs
// it, so the record cannot go stale when a message is reworded.
func TestRecordedComparisonError(t *testing.T) {
	recorded, err := os.ReadFile(filepath.Join(harness.RepoRoot, "compat", "argocd", "cmp", "testdata", "comparison-error.txt"))
	if err != nil {
		t.Fatal(err)
	}
	const wrap = "`routeguard cmp generate` failed exit status 1: "
	_, report, ok := strings.Cut(string(recorded), wrap)
	if !ok {
		t.Fatalf("the record holds no %q:\n%s", wrap, recorded)
	}
	app := "examples/broken/dangling-service"
	r := harness.Run(t, harness.Options{
		Dir: filepath.Join(harness.RepoRoot, app),
		Env: []string{"ARGOCD_APP_NAME=dangling-service", "ARGOCD_APP_NAMESPACE=default", "ARGOCD_APP_SOURCE_PATH=" + app},
	}, "cmp", "generate")
	if r.Code != 1 || r.Stdout != "" {
		t.Fatalf("cmp generate: exit %d, stdout %q; want exit 1 and nothing on stdout", r.Code, r.Stdout)
	}
	if got, want := strings.TrimRight(r.Stderr, "\n"), strings.TrimRight(report, "\n"); got != want {
		t.Errorf("compat/argocd/cmp/testdata/comparison-error.txt is stale: routeguard now prints\n%s\nthe record says\n%s\n"+
			"(make test-compat with ROUTEGUARD_UPDATE_FIXTURES=1 rewrites it; then docs/cmp.md)", got, want)
	}
}
