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
	if spoiled != cold || !strings.Contains(stderr, "did not verify") || !strings.Contains(stderr, "removed with every entry") {
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

// TestAnalyzeCacheInsideRepository: a cache directory inside what analyze
// reads (the repository named by --repo-root, the git top level above the
// app, the app, a link resolving into them; by --cache-dir or
// $ROUTEGUARD_CACHE_DIR, also for stdin) is refused with a notice naming
// it: a pack the repository holds could replay results it forged. The
// report and exit code are those of a run without the cache, and nothing
// is written there. A directory outside is used.
func TestAnalyzeCacheInsideRepository(t *testing.T) {
	root := analyzeRepo(t, "")
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	app := filepath.Join(root, "app")
	stdin, err := os.ReadFile(filepath.Join(app, "app.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(input string, vars map[string]string, args ...string) (string, string, int) {
		var out, errb strings.Builder
		wd, _ := os.Getwd()
		if input != "" {
			wd = app // stdin: the working directory is the app's
		}
		env := &Env{Stdin: strings.NewReader(input), Stdout: &out, Stderr: &errb,
			Getenv:  func(k string) string { return vars[k] },
			Environ: func() []string { return nil },
			Getwd:   func() (string, error) { return wd, nil }}
		code := Execute(t.Context(), append([]string{"analyze", "-o", "json"}, args...), env)
		return out.String(), errb.String(), code
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(app, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		input string
		env   bool // $ROUTEGUARD_CACHE_DIR, not --cache-dir
		dir   string
		args  []string
	}{
		{"repo root", "", false, filepath.Join(root, ".cache"), []string{"--repo-root", root, app}},
		{"git top level", "", false, filepath.Join(root, ".cache"), []string{app}},
		{"the app", "", true, filepath.Join(app, "cache"), []string{app}},
		{"a link into the app", "", false, filepath.Join(link, "cache"), []string{app}},
		{"stdin, --repo-root", string(stdin), true, filepath.Join(root, "cache"), []string{"--repo-root", root, "-"}},
		{"stdin, the working directory", string(stdin), false, filepath.Join(app, "cache"), []string{"-"}},
	} {
		want, wantErr, wantCode := run(tc.input, nil, append([]string{"--no-cache"}, tc.args...)...)
		if wantCode != ExitFindings {
			t.Fatalf("%s: without the cache: exit %d: %s", tc.name, wantCode, wantErr)
		}
		vars, args := map[string]string{}, append([]string{"--cache-dir", tc.dir}, tc.args...)
		if tc.env {
			vars, args = map[string]string{"ROUTEGUARD_CACHE_DIR": tc.dir}, tc.args
		}
		got, stderr, code := run(tc.input, vars, args...)
		if got != want || code != wantCode || !strings.Contains(stderr, "validation results are not cached") ||
			!strings.Contains(stderr, "inside the repository") || !strings.Contains(stderr, tc.dir) {
			t.Errorf("%s: exit %d, report changed %t, stderr %q", tc.name, code, got != want, stderr)
		}
		// Outside the repository, the same run keeps its results.
		outside := filepath.Join(t.TempDir(), "cache")
		if tc.env {
			vars = map[string]string{"ROUTEGUARD_CACHE_DIR": outside}
		} else {
			args[1] = outside
		}
		if got, stderr, _ := run(tc.input, vars, args...); got != want || stderr != wantErr {
			t.Errorf("%s: outside: report changed %t, stderr %q", tc.name, got != want, stderr)
		}
		if packs, _ := filepath.Glob(filepath.Join(outside, "pack-*")); len(packs) == 0 {
			t.Errorf("%s: the cache outside the repository kept nothing", tc.name)
		}
	}
	var made []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && (d.Name() == "cache" || d.Name() == ".cache" || strings.HasPrefix(d.Name(), "pack-")) {
			made = append(made, p)
		}
		return nil
	})
	if len(made) > 0 {
		t.Errorf("written inside the repository: %v", made)
	}
}
