package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDiffReports: --report FORMAT=FILE of a diff writes the findings of
// the head revision (all of them, not only those the change introduced)
// and leaves the review on stdout; --report FORMAT alone replaces it.
func TestDiffReports(t *testing.T) {
	typo := strings.Replace(diffRoute, "{name: green, port: 80", "{name: gren, port: 80", 1)
	dir := diffRepo(t, diffRoute, typo)
	out := t.TempDir()
	review, _, code := runIn(t, dir, "diff", "--base", "HEAD~1", "--head", "HEAD", "app")
	stdout, stderr, code2 := runIn(t, dir, "diff", "--base", "HEAD~1", "--head", "HEAD", "app",
		"--report", "gitlab="+filepath.Join(out, "gl.json"), "--report", "junit="+filepath.Join(out, "j.xml"))
	if code != 1 || code2 != 1 || stdout != review {
		t.Fatalf("exit %d (without --report %d), stdout:\n%s\nwant the review:\n%s\nstderr:\n%s", code2, code, stdout, review, stderr)
	}
	var issues []struct {
		CheckName string `json:"check_name"`
	}
	data, err := os.ReadFile(filepath.Join(out, "gl.json"))
	if err != nil || json.Unmarshal(data, &issues) != nil || len(issues) == 0 || issues[0].CheckName != "RG1101" {
		t.Fatalf("Code Quality report (%v):\n%s", err, data)
	}
	if data, _ := os.ReadFile(filepath.Join(out, "j.xml")); !bytes.Contains(data, []byte("RG1101")) {
		t.Errorf("JUnit report:\n%s", data)
	}
	// The head's findings, not only the introduced ones: a diff without
	// change still reports what head holds.
	dir = diffRepo(t, typo, typo)
	stdout, _, code = runIn(t, dir, "diff", "--base", "HEAD~1", "--head", "HEAD", "app", "--report", "json")
	if code != 0 || !strings.Contains(stdout, `"code": "RG1101"`) || !strings.Contains(stdout, `"schemaVersion": 1`) {
		t.Errorf("--report json: exit %d, stdout:\n%s", code, stdout)
	}
	_, stderr, code = runIn(t, dir, "diff", "-o", "markdown", "--report", "json", "app")
	if code != 2 || !strings.Contains(stderr, "--output markdown and --report json both go to standard output") {
		t.Errorf("-o markdown --report json: exit %d, stderr %q", code, stderr)
	}
}

// TestDiffProgress: ROUTEGUARD_PROGRESS=always shows, on stderr that is no
// terminal, a line per revision and per app as plain lines and the
// summary; auto (the default) shows nothing there; a bad value is an error
// naming the variable.
func TestDiffProgress(t *testing.T) {
	dir := diffRepo(t, diffRoute, strings.Replace(diffRoute, "weight: 90", "weight: 70", 1))
	run := func(progress string) (string, string, int) {
		var out, errb bytes.Buffer
		env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
			Getenv:  func(k string) string { return map[string]string{"ROUTEGUARD_PROGRESS": progress}[k] },
			Environ: func() []string { return nil }, Getwd: func() (string, error) { return dir, nil }}
		code := Execute(context.Background(), []string{"diff", "--base", "HEAD~1", "--head", "HEAD", "app"}, env)
		return out.String(), errb.String(), code
	}
	quietOut, quiet, _ := run("")
	out, stderr, code := run("always")
	if code != 1 || out != quietOut {
		t.Fatalf("exit %d; stdout changed with progress:\n%s", code, out)
	}
	progress := strings.TrimSuffix(stderr, quiet)
	want := regexp.MustCompile(`^routeguard: diff: base HEAD~1 \([0-9a-f]{7}\)…
routeguard: diff: head HEAD \([0-9a-f]{7}\)…
(routeguard: diff: (base HEAD~1|head HEAD) \([0-9a-f]{7}\): \[1\] app app analyzed
){2}routeguard: diff: base HEAD~1 \([0-9a-f]{7}\): 1 app \(1 analyzed\); head HEAD \([0-9a-f]{7}\): 1 app \(1 analyzed\); findings introduced: 0 errors, 0 warnings, 0 infos; done in [0-9.]+m?s
$`)
	if !want.MatchString(progress) {
		t.Errorf("progress:\n%s\nwant it to match %s", progress, want)
	}
	if strings.Contains(quiet, "diff: base") {
		t.Errorf("auto progress on a buffer:\n%s", quiet)
	}
	if _, stderr, code := run("sometimes"); code != 2 || !strings.Contains(stderr, `ROUTEGUARD_PROGRESS: progress must be auto, always or never, got "sometimes"`) {
		t.Errorf("bad ROUTEGUARD_PROGRESS: exit %d, %q", code, stderr)
	}
}
