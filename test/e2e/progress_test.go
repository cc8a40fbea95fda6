package e2e

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/term"

	"github.com/routeguard/routeguard/test/harness"
)

// onTerminal runs routeguard with stderr on a pseudo-terminal (raw: what
// routeguard writes arrives as written) and stdout in a buffer.
func onTerminal(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("opening a pty: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 200}); err != nil {
		t.Fatal(err)
	}
	if _, err := term.MakeRaw(int(tty.Fd())); err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); io.Copy(&errb, ptmx) }()
	cmd := harness.Command(t, harness.Options{Env: env}, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, tty
	runErr := cmd.Run()
	tty.Close()
	wg.Wait()
	if cmd.ProcessState == nil {
		t.Fatalf("running routeguard: %v", runErr)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// TestProgressOnTerminal: with stderr on a terminal, argocd analyze and
// flux build rewrite one progress line per Application or Kustomization
// and HelmRelease, clear it, and end with a summary of counts; stdout and
// everything else on stderr are what they are without a terminal, where no
// progress appears (ROUTEGUARD_PROGRESS=never on a terminal too).
func TestProgressOnTerminal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		item    *regexp.Regexp
		summary *regexp.Regexp
	}{
		{[]string{"argocd", "analyze", "examples/argocd"},
			regexp.MustCompile(`\x1b\[Krouteguard: argocd analyze: \[\d+\] Application argocd/[a-z0-9-]+ (rendered|partial|skipped|failed)\r`),
			regexp.MustCompile(`routeguard: argocd analyze: \d+ Applications \(\d+ rendered[^)]*\); findings: \d+ errors?, \d+ warnings?, \d+ infos?; done in [0-9.]+m?s\n`)},
		{[]string{"flux", "build", "--all", "examples/flux/clusters/prod"},
			regexp.MustCompile(`\x1b\[Krouteguard: flux build: \[\d+\] (Kustomization|HelmRelease) [a-z0-9-]+/[a-z0-9-]+ (built|skipped|failed)\r`),
			regexp.MustCompile(`routeguard: flux build: \d+ Kustomizations \(\d+ built\), 1 HelmRelease \(1 built\); findings: \d+ errors?, \d+ warnings?, \d+ infos?; done in [0-9.]+m?s\n$`)},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			plain := routeguard(t, nil, tc.args...)
			stdout, stderr, code := onTerminal(t, nil, tc.args...)
			if code != plain.code || stdout != plain.stdout {
				t.Fatalf("on a terminal exit %d stdout\n%s\nwithout: exit %d\n%s", code, stdout, plain.code, plain.stdout)
			}
			if !tc.item.MatchString(stderr) || !tc.summary.MatchString(stderr) {
				t.Errorf("stderr on a terminal lacks the progress line or the summary:\n%q", stderr)
			}
			// Without the progress lines and the summary, stderr is the same.
			rest := tc.summary.ReplaceAllString(tc.item.ReplaceAllString(stderr, ""), "")
			rest = strings.ReplaceAll(strings.ReplaceAll(rest, "\x1b[K\r", ""), "\x1b[K", "")
			if rest != plain.stderr {
				t.Errorf("stderr besides the progress differs:\n%q\nwithout a terminal:\n%q", rest, plain.stderr)
			}
			if strings.Contains(plain.stderr, "\x1b") || strings.Contains(plain.stderr, "\r") || strings.Contains(plain.stderr, "done in") {
				t.Errorf("progress without a terminal:\n%q", plain.stderr)
			}
			_, never, _ := onTerminal(t, []string{"ROUTEGUARD_PROGRESS=never"}, tc.args...)
			if never != plain.stderr {
				t.Errorf("ROUTEGUARD_PROGRESS=never on a terminal:\n%q\nwant\n%q", never, plain.stderr)
			}
		})
	}
}

// TestProgressForced: ROUTEGUARD_PROGRESS=always (or --progress always)
// gives plain lines without a terminal; a bad value is an error.
func TestProgressForced(t *testing.T) {
	t.Parallel()
	r := routeguard(t, []string{"ROUTEGUARD_PROGRESS=always"}, "argocd", "build", "examples/argocd")
	if r.code != 0 || !regexp.MustCompile(`(?m)^routeguard: argocd build: \[1\] Application argocd/\S+ \w+$`).MatchString(r.stderr) ||
		!regexp.MustCompile(`(?m)^routeguard: argocd build: \d+ Applications \(.*\); done in `).MatchString(r.stderr) || strings.Contains(r.stderr, "\r") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	r = routeguard(t, nil, "flux", "build", "--all", "--progress", "always", "examples/flux/clusters/prod")
	if r.code != 0 || !strings.Contains(r.stderr, "routeguard: flux build: [1] Kustomization ") {
		t.Errorf("--progress always: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	r = routeguard(t, nil, "argocd", "analyze", "--progress", "loud", "examples/argocd")
	if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, `routeguard: --progress: progress must be auto, always or never, got "loud"`) {
		t.Errorf("--progress loud: exit %d, stderr %q", r.code, r.stderr)
	}
}
