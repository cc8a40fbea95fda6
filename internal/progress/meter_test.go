package progress

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/term"
)

// clock returns a clock that moves 1.5 s per reading.
func clock() func() time.Time {
	t := time.Date(2026, 12, 2, 5, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(1500 * time.Millisecond); return t }
}

// run drives a Meter as argocd diff would.
func run(m *Meter) {
	base := m.Phase("base main (1a2b3c4)")
	base.Total(2)
	base.Done("Application", "argocd/web", "rendered")
	base.Done("Application", "argocd/api", "skipped")
	head := m.Phase("head")
	head.Total(3)
	head.Done("Application", "argocd/web", "rendered")
	head.Done("Application", "argocd/api", "rendered")
	head.Done("ApplicationSet", "argocd/teams", "not buildable")
	head.Done("Application", "argocd/api", "rendered") // again: counts once
	m.Findings("", 1, 2, 0)
	m.Finish()
}

const summary = "routeguard: argocd diff: base main (1a2b3c4): 2 Applications (1 rendered, 1 skipped); " +
	"head: 2 Applications (2 rendered), 1 ApplicationSet (1 not buildable); findings: 1 error, 2 warnings, 0 infos; done in 1.5s\n"

// TestNotTerminal: a writer that is not a terminal gets nothing, in Auto
// and Never mode; Always gives plain lines, one per item, and the summary.
func TestNotTerminal(t *testing.T) {
	for _, mode := range []Mode{Auto, Never} {
		var buf bytes.Buffer
		m := New(&buf, Options{Mode: mode, Command: "argocd diff", Now: clock()})
		if m.On() {
			t.Errorf("%v: on for a buffer", mode)
		}
		run(m)
		if buf.Len() != 0 {
			t.Errorf("%v wrote %q to a writer that is not a terminal", mode, buf.String())
		}
	}
	// A file is no terminal either.
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	run(New(f, Options{Command: "argocd diff"}))
	if fi, _ := f.Stat(); fi.Size() != 0 {
		t.Errorf("Auto wrote %d bytes to a regular file", fi.Size())
	}

	var buf bytes.Buffer
	run(New(&buf, Options{Mode: Always, Command: "argocd diff", Now: clock()}))
	want := "routeguard: argocd diff: base main (1a2b3c4)…\n" +
		"routeguard: argocd diff: base main (1a2b3c4): [1/2] Application argocd/web rendered\n" +
		"routeguard: argocd diff: base main (1a2b3c4): [2/2] Application argocd/api skipped\n" +
		"routeguard: argocd diff: head…\n" +
		"routeguard: argocd diff: head: [1/3] Application argocd/web rendered\n" +
		"routeguard: argocd diff: head: [2/3] Application argocd/api rendered\n" +
		"routeguard: argocd diff: head: [3/3] ApplicationSet argocd/teams not buildable\n" +
		"routeguard: argocd diff: head: [3/3] Application argocd/api rendered\n" + summary
	if buf.String() != want {
		t.Errorf("Always:\n%s\nwant:\n%s", buf.String(), want)
	}
}

// TestNilMeter: a nil Meter is off and every method is safe.
func TestNilMeter(t *testing.T) {
	var m *Meter
	run(m)
	if m.On() {
		t.Error("nil Meter on")
	}
}

// TestTerminal runs the Meter on a pseudo-terminal: one line rewritten in
// place (cleared to its end, ended by a carriage return), cut to the
// terminal's width, cleared before the summary.
func TestTerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("opening a pty: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 60}); err != nil {
		t.Fatal(err)
	}
	// Raw mode: the terminal passes "\n" and "\r" through untranslated.
	if _, err := term.MakeRaw(int(tty.Fd())); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); io.Copy(&got, ptmx) }()

	// Wrapped as the CLI wraps stderr (printable.Writer has Unwrap).
	m := New(wrapper{tty}, Options{Command: "argocd diff", Now: clock()})
	if !m.On() {
		t.Fatal("off on a terminal")
	}
	if isTerm, width := Terminal(wrapper{tty}); !isTerm || width != 60 {
		t.Errorf("Terminal = %v, %d", isTerm, width)
	}
	run(m)
	m.Clear() // nothing drawn since Finish: writes nothing
	m.Phase("a phase whose name is far longer than the sixty columns of this terminal")
	m.Clear()
	tty.Close()
	wg.Wait()

	// Every line fits in 59 columns: one that wrapped could not be
	// rewritten.
	lines := strings.Split(got.String(), "\r")
	want := []string{
		"\x1b[Krouteguard: argocd diff: base main (1a2b3c4)…",
		"\x1b[Krouteguard: argocd diff: base main (1a2b3c4): [1/2] Applic…",
		"\x1b[Krouteguard: argocd diff: base main (1a2b3c4): [2/2] Applic…",
		"\x1b[Krouteguard: argocd diff: head…",
		"\x1b[Krouteguard: argocd diff: head: [1/3] Application argocd/we…",
		"\x1b[Krouteguard: argocd diff: head: [2/3] Application argocd/ap…",
		"\x1b[Krouteguard: argocd diff: head: [3/3] ApplicationSet argocd…",
		"\x1b[Krouteguard: argocd diff: head: [3/3] Application argocd/ap…",
		"\x1b[K" + summary + "\x1b[Krouteguard: argocd diff: a phase whose name is far longer …",
		"\x1b[K",
		"",
	}
	if len(lines) != len(want) {
		t.Fatalf("terminal got %q", got.String())
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("write %d = %q, want %q", i, lines[i], want[i])
		}
	}
}

type wrapper struct{ w io.Writer }

func (w wrapper) Write(p []byte) (int, error) { return w.w.Write(p) }
func (w wrapper) Unwrap() io.Writer           { return w.w }

func TestParseMode(t *testing.T) {
	for s, want := range map[string]Mode{"": Auto, "auto": Auto, "always": Always, "never": Never} {
		if got, err := ParseMode(s); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseMode("yes"); err == nil || err.Error() != `progress must be auto, always or never, got "yes"` {
		t.Errorf("ParseMode(yes): %v", err)
	}
}

// TestConcurrent: items finishing on many goroutines are all counted.
func TestConcurrent(t *testing.T) {
	var buf syncBuffer
	m := New(&buf, Options{Mode: Always, Now: clock()})
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status := "built"
			if i%5 == 0 {
				status = "not buildable"
			}
			m.Done("Kustomization", fmt.Sprintf("flux-system/app-%d", i), status)
		}()
	}
	wg.Wait()
	m.Finish()
	if !strings.HasSuffix(buf.String(), "50 Kustomizations (40 built, 10 not buildable); done in 1.5s\n") &&
		!strings.HasSuffix(buf.String(), "50 Kustomizations (10 not buildable, 40 built); done in 1.5s\n") {
		t.Errorf("summary: %q", buf.String()[strings.LastIndex(buf.String()[:buf.Len()-1], "\n")+1:])
	}
	if n := strings.Count(buf.String(), "] Kustomization flux-system/app-"); n != 50 {
		t.Errorf("%d item lines, want 50", n)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { return s.b.String() }
func (s *syncBuffer) Len() int       { return s.b.Len() }

// TestInterleavedPhases: a diff builds both revisions at once; each item
// counts in its own phase, and the summary keeps the phases' order.
func TestInterleavedPhases(t *testing.T) {
	var buf bytes.Buffer
	m := New(&buf, Options{Mode: Always, Command: "flux diff", Now: clock()})
	base, head := m.Phase("base main"), m.Phase("head work tree")
	head.Done("Kustomization", "flux-system/apps", "built")
	base.Done("Kustomization", "flux-system/apps", "built")
	head.Done("HelmRelease", "web/web", "not buildable")
	base.Done("HelmRelease", "web/web", "built")
	m.Finish()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := []string{
		"routeguard: flux diff: base main…",
		"routeguard: flux diff: head work tree…",
		"routeguard: flux diff: head work tree: [1] Kustomization flux-system/apps built",
		"routeguard: flux diff: base main: [1] Kustomization flux-system/apps built",
		"routeguard: flux diff: head work tree: [2] HelmRelease web/web not buildable",
		"routeguard: flux diff: base main: [2] HelmRelease web/web built",
		"routeguard: flux diff: base main: 1 Kustomization (1 built), 1 HelmRelease (1 built); " +
			"head work tree: 1 Kustomization (1 built), 1 HelmRelease (1 not buildable); done in 1.5s",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", buf.String(), strings.Join(want, "\n"))
	}
}
