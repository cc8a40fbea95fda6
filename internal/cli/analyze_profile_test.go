package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/profile"
)

// TestAnalyzeProfile: --profile DIR and $ROUTEGUARD_PROFILE write both
// profiles and leave the report as it is without them.
func TestAnalyzeProfile(t *testing.T) {
	root := analyzeRepo(t, "")
	plain, _, _ := runCLI(t, "", "analyze", "-o", "json", "--repo-root", root, filepath.Join(root, "app"))

	flagDir := filepath.Join(t.TempDir(), "flag")
	stdout, stderr, code := runCLI(t, "", "analyze", "-o", "json", "--profile", flagDir, "--repo-root", root, filepath.Join(root, "app"))
	if code != ExitFindings || stdout != plain {
		t.Errorf("--profile changed the run: exit %d, stderr %s", code, stderr)
	}

	envDir := filepath.Join(t.TempDir(), "env")
	var out, errb bytes.Buffer
	env := &Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string {
			if k == profile.Env {
				return envDir
			}
			return ""
		},
		Environ: func() []string { return nil },
		Getwd:   os.Getwd,
	}
	if code := Execute(context.Background(), []string{"analyze", "-o", "json", "--repo-root", root, filepath.Join(root, "app")}, env); code != ExitFindings {
		t.Errorf("$%s: exit %d, stderr %s", profile.Env, code, errb.String())
	}
	for _, dir := range []string{flagDir, envDir} {
		for _, name := range []string{profile.CPUFile, profile.HeapFile} {
			if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
				t.Errorf("%s/%s: not written (%v)", dir, name, err)
			}
		}
	}

	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	if _, stderr, code := runCLI(t, "", "analyze", "--profile", file, filepath.Join(root, "app")); code != ExitError || !strings.Contains(stderr, "--profile") {
		t.Errorf("--profile on a file: exit %d, stderr %s", code, stderr)
	}
}
