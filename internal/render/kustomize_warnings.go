package render

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/routeguard/routeguard/internal/printable"
)

// Kustomize prints its deprecation warnings itself, to os.Stderr
// (api/internal/target: "# Warning: 'commonLabels' is deprecated ..."), once
// per kustomization built: a tree of many Kustomizations repeated each of
// them, unprefixed, among routeguard's own lines.

// KustomizeWarnings sends what is written to os.Stderr (by libraries:
// routeguard writes to its own streams) through a filter to w: each line
// once, a Kustomize warning as "routeguard: kustomize: warning: ...",
// anything else as "routeguard: <line>", escaped for the terminal.
//
// Kustomize's warnings are held and written sorted, before the next line
// routeguard itself writes to the returned stderr (which first waits for
// everything written to os.Stderr until then to be read) and at restore:
// renders run in parallel, so the order they raise warnings in varies from
// run to run, and the same review must print the same bytes. restore puts
// os.Stderr back and flushes; call it before exiting.
func KustomizeWarnings(w io.Writer) (stderr io.Writer, restore func()) {
	r, pw, err := os.Pipe()
	if err != nil {
		return w, func() {}
	}
	orig := os.Stderr
	os.Stderr = pw
	f := newStderrFilter(w)
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.run(r)
	}()
	sw := &syncedStderr{f: f, pipe: pw, w: w, done: done}
	var once sync.Once
	return sw, func() {
		once.Do(func() {
			sw.mu.Lock()
			sw.closed = true
			sw.mu.Unlock()
			os.Stderr = orig
			pw.Close()
			<-done
			r.Close()
			f.flush()
		})
	}
}

// filterStderr copies lines from r to w, each distinct line once, prefixed
// (Kustomize's warnings sorted, before the next other line and at the
// end).
func filterStderr(r io.Reader, w io.Writer) {
	f := newStderrFilter(w)
	f.run(r)
	f.flush()
}

// syncMarker is written into the pipe by syncedStderr: when the filter
// reads it, everything written to os.Stderr before it has been read.
const syncMarker = "\x00routeguard-stderr-sync\x00"

type stderrFilter struct {
	w       io.Writer
	mu      sync.Mutex // held while writing to w
	seen    map[string]bool
	pending []string // Kustomize warnings not yet written
	synced  chan struct{}
}

func newStderrFilter(w io.Writer) *stderrFilter {
	return &stderrFilter{w: w, seen: map[string]bool{}, synced: make(chan struct{}, 1)}
}

func (f *stderrFilter) run(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.Contains(line, syncMarker) {
			if line = strings.TrimSpace(strings.ReplaceAll(line, syncMarker, "")); line == "" {
				select {
				case f.synced <- struct{}{}:
				default:
				}
				continue
			}
		}
		if line == "" {
			continue
		}
		f.mu.Lock()
		if !f.seen[line] {
			f.seen[line] = true
			if rest, ok := strings.CutPrefix(line, "# Warning: "); ok {
				f.pending = append(f.pending, fmt.Sprintf("routeguard: kustomize: warning: %s\n", printable.Line(rest)))
			} else {
				f.flushLocked()
				fmt.Fprintf(f.w, "routeguard: %s\n", printable.Line(line))
			}
		}
		f.mu.Unlock()
	}
	_, _ = io.Copy(io.Discard, r)
}

// flush writes the warnings held, sorted.
func (f *stderrFilter) flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.flushLocked()
}

func (f *stderrFilter) flushLocked() {
	slices.Sort(f.pending)
	for _, l := range f.pending {
		io.WriteString(f.w, l)
	}
	f.pending = nil
}

// syncedStderr is routeguard's own stderr while the filter runs: before
// each write, what libraries wrote to os.Stderr until then is read and the
// warnings held are written.
type syncedStderr struct {
	f      *stderrFilter
	pipe   *os.File
	w      io.Writer
	done   chan struct{}
	mu     sync.Mutex
	closed bool
}

// maxSyncWait bounds how long a write waits for the filter to read what
// came before it (it is a copy between two goroutines; the bound only
// keeps a stuck library write from stopping routeguard's own output).
const maxSyncWait = 2 * time.Second

func (s *syncedStderr) Write(p []byte) (int, error) {
	s.mu.Lock()
	if !s.closed {
		if _, err := io.WriteString(s.pipe, "\n"+syncMarker+"\n"); err == nil {
			select {
			case <-s.f.synced:
			case <-s.done:
			case <-time.After(maxSyncWait):
			}
		}
	}
	s.mu.Unlock()
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.f.flushLocked()
	return s.w.Write(p)
}

// Unwrap is the stderr written to (progress asks whether it is a
// terminal).
func (s *syncedStderr) Unwrap() io.Writer { return s.w }
