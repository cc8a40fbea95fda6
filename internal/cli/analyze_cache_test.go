package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnalyzeCacheDir: --cache-dir keeps results (0700/0600), a warm run
// prints the same report, an altered entry is a notice and the same
// report, and --no-cache keeps nothing.
func TestAnalyzeCacheDir(t *testing.T) {
	root := analyzeRepo(t, "")
	dir := filepath.Join(t.TempDir(), "cache")
	args := []string{"analyze", "-o", "json", "--cache-dir", dir, "--repo-root", root, filepath.Join(root, "app")}
	cold, stderr, code := runCLI(t, "", args...)
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var entries []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			entries = append(entries, p)
			if info, _ := d.Info(); info.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v", p, info.Mode().Perm())
			}
		}
		return nil
	})
	if len(entries) == 0 {
		t.Fatal("the cold run kept no result")
	}
	if warm, stderr, _ := runCLI(t, "", args...); warm != cold || stderr != "" {
		t.Errorf("warm run: stderr %q, report changed: %t", stderr, warm != cold)
	}
	for _, e := range entries {
		data, _ := os.ReadFile(e)
		os.WriteFile(e, append(data[:len(data)-1], data[len(data)-1]^1), 0o600)
	}
	spoiled, stderr, _ := runCLI(t, "", args...)
	if spoiled != cold || !strings.Contains(stderr, "did not verify") {
		t.Errorf("altered entries: stderr %q, report changed: %t", stderr, spoiled != cold)
	}
	// The default is the user cache directory's; --no-cache keeps nothing.
	for _, tc := range []struct {
		flags []string
		kept  bool
	}{{nil, true}, {[]string{"--no-cache"}, false}} {
		home := t.TempDir()
		var out, errb strings.Builder
		env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
			Getenv: func(k string) string {
				if k == "HOME" {
					return home
				}
				return ""
			},
			Environ: func() []string { return nil }, Getwd: os.Getwd}
		Execute(t.Context(), append(append([]string{"analyze"}, tc.flags...), "--repo-root", root, filepath.Join(root, "app")), env)
		_, err := os.Stat(filepath.Join(home, ".cache", "routeguard", "validation"))
		if kept := err == nil; kept != tc.kept {
			t.Errorf("flags %q: cache directory kept %t, want %t (stderr %s)", tc.flags, kept, tc.kept, errb.String())
		}
	}
}
