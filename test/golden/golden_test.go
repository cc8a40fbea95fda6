package golden

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/test/cachekey"
)

var update = flag.Bool("update", false, "rewrite the golden files from what the commands print now")

var (
	repoRoot string
	binary   string
	fix      *fixtures
	replacer *strings.Replacer
)

// goldenVersion is the version stamped into the binary the test builds.
const goldenVersion = "v0.0.0-golden"

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(setup(m))
}

func setup(m *testing.M) int {
	_, file, _, _ := runtime.Caller(0)
	repoRoot = filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
	var err error
	if fix, err = buildFixtures(); err != nil {
		fmt.Fprintln(os.Stderr, "golden: fixtures:", err)
		return 2
	}
	defer os.RemoveAll(fix.dir)
	if binary, err = routeguardBinary(); err != nil {
		fmt.Fprintln(os.Stderr, "golden:", err)
		return 2
	}
	versionLine, version, err := binaryVersion()
	if err != nil {
		fmt.Fprintln(os.Stderr, "golden:", err)
		return 2
	}
	// Longest first: the fixtures directory lies outside the checkout, a
	// full hash before its prefixes.
	pairs := []string{fix.dir, "$FIXTURES", repoRoot, "$REPO"}
	for _, name := range slices.Sorted(maps.Keys(fix.hashes)) {
		h := fix.hashes[name]
		pairs = append(pairs, h, name, h[:12], name, h[:8], name, h[:7], name)
	}
	// The whole line of `routeguard version` (revision, platform, Go), then
	// the version alone (in reports).
	pairs = append(pairs, versionLine, "routeguard $VERSION_LINE", version, "$VERSION")
	replacer = strings.NewReplacer(pairs...)
	return m.Run()
}

// routeguardBinary is $ROUTEGUARD_BIN (with routeguard-istio beside it, as
// `make build` leaves them), else both built into the fixtures directory.
func routeguardBinary() (string, error) {
	if b := os.Getenv("ROUTEGUARD_BIN"); b != "" {
		if _, err := os.Stat(filepath.Join(filepath.Dir(b), "routeguard-istio")); err != nil {
			return "", fmt.Errorf("ROUTEGUARD_BIN=%s: routeguard-istio must sit beside it (make build): %v", b, err)
		}
		return b, nil
	}
	dir := filepath.Join(fix.dir, "bin")
	for _, name := range []string{"routeguard", "routeguard-istio"} {
		cmd := exec.Command("go", "build", "-ldflags", "-X github.com/routeguard/routeguard/internal/version.version="+goldenVersion,
			"-o", filepath.Join(dir, name), "./cmd/"+name)
		cmd.Dir = repoRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("building %s: %v\n%s", name, err, out)
		}
	}
	return filepath.Join(dir, "routeguard"), nil
}

// binaryVersion is what `routeguard version` prints (placeholder
// $VERSION_LINE) and the version in it (placeholder $VERSION).
func binaryVersion() (line, version string, err error) {
	out, err := exec.Command(binary, "version").Output()
	if err != nil {
		return "", "", fmt.Errorf("%s version: %v", binary, err)
	}
	line = strings.TrimSpace(string(out))
	f := strings.Fields(line)
	if len(f) < 2 || len(f[1]) < 6 {
		return "", "", fmt.Errorf("%s version printed %q; want a version of 6 characters or more to replace safely", binary, out)
	}
	return line, f[1], nil
}

// A run is one command line and where it runs.
type run struct {
	name  string   // golden file, testdata/<name>.txt
	args  []string // $FIXTURES and $REPO are expanded
	dir   string   // working directory (default $REPO)
	env   []string // KEY=VALUE, besides PATH, HOME and TMPDIR ($FIXTURES and $REPO are expanded)
	stdin string   // file to read standard input from
}

func TestGolden(t *testing.T) {
	runs := allRuns()
	seen := map[string]bool{}
	for _, r := range runs {
		if seen[r.name] {
			t.Fatalf("two runs named %s", r.name)
		}
		seen[r.name] = true
	}
	for i, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			got := execute(t, i, r)
			file := filepath.Join("testdata", filepath.FromSlash(r.name)+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (go test ./test/golden -update writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output of %s changed (go test ./test/golden -update, then commit with the reason):\n%s", r.name, lineDiff(string(want), string(got)))
			}
		})
	}
	if *update {
		t.Cleanup(func() { removeStale(t, seen) })
	}
}

var tmpPath = regexp.MustCompile(`/tmp/[^\s"']*`)

// recordInputs puts the binary and the checkout it reads (the fixtures
// are copied from it) into the key of Go's test cache (package cachekey).
func recordInputs() {
	cachekey.Env("ROUTEGUARD_BIN")
	cachekey.Binary(binary)
	cachekey.Tree(repoRoot)
}

// execute runs r and renders its outcome as the golden file's bytes.
func execute(t *testing.T, i int, r run) []byte {
	recordInputs()
	expand := strings.NewReplacer("$FIXTURES", fix.dir, "$REPO", repoRoot)
	args := make([]string, len(r.args))
	for j, a := range r.args {
		args[j] = expand.Replace(a)
	}
	scratch := filepath.Join(fix.dir, "run", fmt.Sprint(i))
	home, tmp := filepath.Join(scratch, "home"), filepath.Join(scratch, "tmp")
	for _, d := range []string{home, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(binary, args...)
	cmd.Dir = repoRoot
	if r.dir != "" {
		cmd.Dir = expand.Replace(r.dir)
	}
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + tmp}
	for _, e := range r.env {
		cmd.Env = append(cmd.Env, expand.Replace(e))
	}
	if r.stdin != "" {
		in := expand.Replace(r.stdin)
		if !filepath.IsAbs(in) {
			in = filepath.Join(repoRoot, in)
		}
		f, err := os.Open(in)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd.Stdin = f
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running routeguard: %v", err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "$ routeguard %s\n", strings.Join(r.args, " "))
	if r.dir != "" {
		fmt.Fprintf(&b, "dir: %s\n", r.dir)
	}
	for _, e := range r.env {
		fmt.Fprintf(&b, "env: %s\n", e)
	}
	if r.stdin != "" {
		fmt.Fprintf(&b, "stdin: %s\n", r.stdin)
	}
	fmt.Fprintf(&b, "exit: %d\n", code)
	for _, s := range []struct {
		name string
		data []byte
	}{{"stdout", stdout.Bytes()}, {"stderr", stderr.Bytes()}} {
		fmt.Fprintf(&b, "-- %s --\n", s.name)
		text := replacer.Replace(string(s.data))
		// Protobuf's error messages put a space or a no-break space after
		// "proto:", chosen from a hash of the binary (protobuf's
		// internal/detrand), so that nobody depends on their text: Istio's
		// IST0106 messages differ between two builds of routeguard-istio.
		text = strings.ReplaceAll(text, "proto:\u00a0", "proto: ")
		// The run's own scratch directory is the same for every run.
		text = strings.ReplaceAll(text, "$FIXTURES/run/"+fmt.Sprint(i)+"/", "$SCRATCH/")
		if m := tmpPath.FindString(text); m != "" {
			t.Errorf("%s prints a temporary path the golden file cannot hold: %s", s.name, m)
		}
		b.WriteString(text)
		if text != "" && !strings.HasSuffix(text, "\n") {
			b.WriteString("\n[no newline at end]\n")
		}
	}
	return b.Bytes()
}

// removeStale deletes golden files no run writes any more.
func removeStale(t *testing.T, names map[string]bool) {
	filepath.WalkDir("testdata", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("testdata", p)
		if !names[strings.TrimSuffix(filepath.ToSlash(rel), ".txt")] {
			t.Logf("removing %s: no run writes it", p)
			os.Remove(p)
		}
		return nil
	})
}

// lineDiff shows the first lines where want and got differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 20; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %q\n  got  %q\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}
