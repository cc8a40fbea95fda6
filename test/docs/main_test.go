package docs

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/test/harness"
)

// pluginDir is a directory holding routeguard-istio, put on PATH when it is
// not beside the binary (the harness builds routeguard alone).
var pluginDir string

func TestMain(m *testing.M) { harness.Main(withPlugin{m}) }

type withPlugin struct{ m *testing.M }

func (w withPlugin) Run() int {
	beside := filepath.Join(filepath.Dir(harness.Binary), "routeguard-istio")
	if _, err := os.Stat(beside); err == nil {
		return w.m.Run()
	}
	if os.Getenv("ROUTEGUARD_BIN") != "" {
		fmt.Fprintf(os.Stderr, "%s is not beside $ROUTEGUARD_BIN: the docs show its findings (make build builds both)\n", beside)
		return 2
	}
	dir, err := os.MkdirTemp("", "routeguard-istio-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "routeguard-istio"), "./cmd/routeguard-istio")
	cmd.Dir = harness.RepoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building routeguard-istio: %v\n%s", err, out)
		return 2
	}
	pluginDir = dir
	return w.m.Run()
}

// pages are the Markdown files whose commands are run: README.md,
// docs/*.md but docs/cli.md (generated and tested by internal/docgen), and
// the READMEs of examples/.
func pages(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(harness.RepoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(filepath.Join(harness.RepoRoot, "examples"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "README.md" {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"README.md"}
	for _, f := range files {
		rel, _ := filepath.Rel(harness.RepoRoot, f)
		if rel != filepath.Join("docs", "cli.md") {
			out = append(out, rel)
		}
	}
	return out
}

// subcommands are the commands routeguard --help lists.
func subcommands(t *testing.T) []string {
	t.Helper()
	r := harness.Run(t, harness.Options{}, "--help")
	if r.Code != 0 {
		t.Fatalf("routeguard --help: exit %d\n%s", r.Code, r.Stderr)
	}
	_, list, ok := strings.Cut(r.Stdout, "Available Commands:\n")
	if !ok {
		t.Fatalf("routeguard --help lists no commands:\n%s", r.Stdout)
	}
	list, _, _ = strings.Cut(list, "\n\n")
	var names []string
	for _, l := range strings.Split(list, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	if len(names) < 10 {
		t.Fatalf("routeguard --help lists %d commands: %q", len(names), names)
	}
	return names
}

// TestDocCommands runs every runnable block of the pages and fails on a
// block that names routeguard but is neither runnable nor marked.
func TestDocCommands(t *testing.T) {
	subs := subcommands(t)
	template := exampleRepository(t)
	var run, skipped int
	for _, page := range pages(t) {
		text, err := os.ReadFile(filepath.Join(harness.RepoRoot, page))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := Parse(page, string(text))
		if err != nil {
			t.Error(err)
			continue
		}
		for _, b := range blocks {
			kind, steps, err := Plan(b, subs)
			switch {
			case err != nil:
				t.Error(err)
			case kind == Skipped:
				skipped++
				t.Logf("%s: skipped: %s", b, b.Mark.Skip)
			case kind == Unmarked:
				t.Errorf("%s: the block names a routeguard command or shows its output, but is neither runnable "+
					"(\"$ \" lines, or only routeguard commands in a sh block) nor marked "+
					"(<!-- doctest: skip REASON --> or <!-- doctest: run COMMAND -->; docs/contributing.md)", b)
			case kind == Runnable:
				run++
				// Each block runs in a copy of its own (runBlock), so the blocks
				// run in parallel.
				t.Run(strings.ReplaceAll(b.String(), "/", "_"), func(t *testing.T) {
					t.Parallel()
					runBlock(t, template, b, steps)
				})
			}
		}
	}
	t.Logf("%d blocks run, %d skipped", run, skipped)
	if run == 0 {
		t.Fatal("no block ran: the pages were not found or the convention changed")
	}
}

func runBlock(t *testing.T, template string, b Block, steps []Step) {
	dir := t.TempDir()
	if err := copyTree(template, dir); err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		if err := copyNamed(s.Command, dir); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range steps {
		out, code := shell(t, dir, s.Command)
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if code != s.Exit {
			t.Errorf("%s: %s\nexit %d, the page says %d; it printed:\n%s", b, s.Command, code, s.Exit, out)
			return
		}
		if s.Output != nil && !Match(s.Output, lines) {
			t.Errorf("%s: %s\nthe page shows:\n%s\nit prints:\n%s", b, s.Command, strings.Join(s.Output, "\n"), out)
		}
	}
}

// shell runs one command with /bin/sh in dir, routeguard first on PATH,
// and returns its stdout followed by its stderr (as the pages show them:
// the report, then the notes and the summary; one stream would interleave
// them in whatever order the writes happened).
func shell(t *testing.T, dir, command string) (string, int) {
	t.Helper()
	harness.RecordInputs()
	path := filepath.Dir(harness.Binary)
	if pluginDir != "" {
		path += string(os.PathListSeparator) + pluginDir
	}
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + path + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	out := stdout.String() + stderr.String()
	if ee, ok := err.(*exec.ExitError); ok {
		return out, ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %q: %v", command, err)
	}
	return out, 0
}

// gitEnv makes the example repository's commit the same on every run.
var gitEnv = []string{
	"GIT_AUTHOR_NAME=routeguard docs", "GIT_AUTHOR_EMAIL=docs@routeguard.invalid", "GIT_AUTHOR_DATE=2025-01-01T00:00:00Z",
	"GIT_COMMITTER_NAME=routeguard docs", "GIT_COMMITTER_EMAIL=docs@routeguard.invalid", "GIT_COMMITTER_DATE=2025-01-01T00:00:00Z",
	"GIT_CONFIG_NOSYSTEM=1",
}

// exampleRepository copies examples/ into a git repository whose branch
// main holds it: what every block starts from.
func exampleRepository(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := copyTree(filepath.Join(harness.RepoRoot, "examples"), filepath.Join(dir, "examples")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "examples"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, gitEnv...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return dir
}

var pathToken = regexp.MustCompile(`[A-Za-z0-9_.][A-Za-z0-9_./-]*`)

// copyNamed copies into dir each file or directory of the repository
// outside examples/ that the command names.
func copyNamed(command, dir string) error {
	for _, tok := range pathToken.FindAllString(command, -1) {
		tok = strings.TrimSuffix(filepath.Clean(tok), "/")
		if tok == "." || strings.HasPrefix(tok, "..") || tok == "examples" || strings.HasPrefix(tok, "examples/") {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, tok)); err == nil {
			continue
		}
		src := filepath.Join(harness.RepoRoot, tok)
		if _, err := os.Lstat(src); err != nil {
			continue
		}
		if err := copyTree(src, filepath.Join(dir, tok)); err != nil {
			return err
		}
	}
	return nil
}

// copyTree copies a file or a directory (regular files, directories and
// symlinks as they are).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case info.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			return os.WriteFile(target, data, info.Mode().Perm())
		}
	})
}
