package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/test/harness"
)

// TestReportsFromOneRun: --report FORMAT=FILE, repeated, writes every
// report from one run, each exactly what a run with that format alone
// prints on stdout, while stdout keeps what the command prints by default
// (or, for the --report without a file, that report).
func TestReportsFromOneRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string // the command, without report flags
		// single: the flags that print one format on stdout ("%s" the
		// format), the oracle for each file.
		single string
		code   int
		// stdin, for postrender and cmp generate.
		stdin string
		env   []string
	}{
		{name: "analyze", args: []string{"analyze", "examples/broken/dangling-service"}, single: "-o %s", code: 1},
		{name: "argocd analyze", args: []string{"argocd", "analyze", "examples/argocd"}, single: "-o %s"},
		{name: "flux build", args: []string{"flux", "build", "--all", "examples/flux/clusters/prod"}, single: "--report %s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			formats := []string{"sarif", "gitlab", "junit", "json"}
			args := append([]string{}, tc.args...)
			for _, f := range formats {
				args = append(args, "--report", f+"="+filepath.Join(dir, "report."+f))
			}
			plain := routeguard(t, tc.env, tc.args...)
			many := routeguard(t, tc.env, args...)
			if many.code != tc.code || plain.code != tc.code {
				t.Fatalf("exit %d (alone %d), want %d:\n%s", many.code, plain.code, tc.code, many.stderr)
			}
			if many.stdout != plain.stdout || many.stderr != plain.stderr {
				t.Errorf("--report FORMAT=FILE changed what the command prints:\n--- stdout\n%s\n--- alone\n%s\n--- stderr\n%s\n--- alone\n%s", many.stdout, plain.stdout, many.stderr, plain.stderr)
			}
			for _, f := range formats {
				got, err := os.ReadFile(filepath.Join(dir, "report."+f))
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				one := routeguard(t, tc.env, append(append([]string{}, tc.args...), strings.Fields(strings.ReplaceAll(tc.single, "%s", f))...)...)
				if string(got) != one.stdout || len(got) == 0 {
					t.Errorf("%s report differs from %s's stdout:\n%s\n--- want\n%s", f, strings.ReplaceAll(tc.single, "%s", f), got, one.stdout)
				}
			}
			// One --report without a file takes stdout.
			text := routeguard(t, tc.env, append(append([]string{}, tc.args...), "--report", "text", "--report", "gitlab="+filepath.Join(dir, "again.json"))...)
			oneText := routeguard(t, tc.env, append(append([]string{}, tc.args...), strings.Fields(strings.ReplaceAll(tc.single, "%s", "text"))...)...)
			if text.stdout != oneText.stdout || text.code != tc.code {
				t.Errorf("--report text: exit %d, stdout\n%s\nwant\n%s", text.code, text.stdout, oneText.stdout)
			}
			if again, _ := os.ReadFile(filepath.Join(dir, "again.json")); string(again) == "" {
				t.Error("the gitlab report beside --report text was not written")
			}
		})
	}
}

// TestReportsManifestCommands: postrender keeps the manifests on stdout
// and the findings on stderr, and writes the report files too; its stdout
// is Helm's, so a report there is refused.
func TestReportsManifestCommands(t *testing.T) {
	t.Parallel()
	broken, err := os.ReadFile(filepath.Join(harness.RepoRoot, "examples/broken/dangling-service/app.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := harness.Run(t, harness.Options{Stdin: strings.NewReader(string(broken))}, "postrender", "--fail-on", "never",
		"--report", "junit="+filepath.Join(dir, "postrender.xml"))
	plain := harness.Run(t, harness.Options{Stdin: strings.NewReader(string(broken))}, "postrender", "--fail-on", "never")
	if r.Code != 0 || r.Stdout != plain.Stdout || r.Stderr != plain.Stderr || !strings.Contains(r.Stderr, "RG1101") {
		t.Errorf("postrender --report: exit %d, stdout differs %v, stderr\n%s", r.Code, r.Stdout != plain.Stdout, r.Stderr)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "postrender.xml")); err != nil || !strings.Contains(string(got), "RG1101") {
		t.Errorf("postrender's JUnit report: %v\n%s", err, got)
	}

	r = harness.Run(t, harness.Options{Stdin: strings.NewReader(string(broken))}, "postrender", "--report", "junit")
	if r.Code != 2 || r.Stdout != "" || !strings.Contains(r.Stderr, "routeguard: --report junit: postrender prints only manifests on stdout; give the report a file (junit=FILE)") {
		t.Errorf("postrender --report junit: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
}

// TestReportsRefused: what cannot work is a usage error before any work,
// and a run that fails writes no report at all.
func TestReportsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stale := filepath.Join(dir, "stale.sarif")
	if err := os.WriteFile(stale, []byte("earlier"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"two to stdout", []string{"analyze", "examples/apps/reviews", "--report", "text", "--report", "sarif"},
			"routeguard: --report text and --report sarif both go to standard output, which holds one report: give all but one a file (FORMAT=FILE)\n"},
		{"-o and --report to stdout", []string{"analyze", "examples/apps/reviews", "-o", "json", "--report", "text"},
			"routeguard: --output json and --report text both go to standard output, which holds one report: give the --report a file (text=FILE), or drop --output\n"},
		{"argocd analyze -o and --report", []string{"argocd", "analyze", "examples/argocd", "-o", "sarif", "--report", "json=-"},
			"both go to standard output"},
		{"flux build twice to stdout", []string{"flux", "build", "--all", "examples/flux/clusters/prod", "--report", "text", "--report", "json"},
			"both go to standard output"},
		{"missing directory", []string{"analyze", "examples/apps/reviews", "--report", "sarif=" + filepath.Join(dir, "out", "rg.sarif")},
			"routeguard: --report sarif=" + filepath.Join(dir, "out", "rg.sarif") + ": cannot write " + filepath.Join(dir, "out", "rg.sarif") + ": directory " + filepath.Join(dir, "out") + " does not exist; create it first\n"},
		{"a directory", []string{"flux", "build", "--all", "examples/flux/clusters/prod", "--report", "junit=" + dir},
			"routeguard: --report junit=" + dir + ": " + dir + " is a directory; name a file\n"},
		{"unknown format", []string{"analyze", "examples/apps/reviews", "--report", "xml=r.xml"},
			`routeguard: --report "xml=r.xml": unknown format "xml"`},
		{"failed run", []string{"analyze", "examples/no-such-app", "--report", "sarif=" + stale, "--report", "gitlab=" + filepath.Join(dir, "new.json")},
			"examples/no-such-app"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := routeguard(t, nil, tc.args...)
			if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout, %q", r.code, r.stdout, r.stderr, tc.want)
			}
			if strings.HasSuffix(tc.want, "\n") && r.stderr != tc.want {
				t.Errorf("stderr %q, want only %q (refused before any work)", r.stderr, tc.want)
			}
		})
	}
	if got, _ := os.ReadFile(stale); string(got) != "earlier" {
		t.Errorf("a failed run wrote %s: %q", stale, got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%s holds %d entries after refused and failed runs, want only stale.sarif", dir, len(entries))
	}
}
