package render

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/routeguard/routeguard/internal/printable"
)

// Kustomize prints its deprecation warnings itself, to os.Stderr
// (api/internal/target: "# Warning: 'commonLabels' is deprecated ..."), once
// per kustomization built: a tree of many Kustomizations repeated each of
// them, unprefixed, among routeguard's own lines.

// KustomizeWarnings sends what is written to os.Stderr (by libraries:
// routeguard writes to its own streams) through a filter to w: each line
// once, a Kustomize warning as "routeguard: kustomize: warning: ...",
// anything else as "routeguard: <line>", escaped for the terminal. restore
// puts os.Stderr back and flushes; call it before exiting.
func KustomizeWarnings(w io.Writer) (restore func()) {
	r, pw, err := os.Pipe()
	if err != nil {
		return func() {}
	}
	orig := os.Stderr
	os.Stderr = pw
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		filterStderr(r, w)
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			os.Stderr = orig
			pw.Close()
			wg.Wait()
			r.Close()
		})
	}
}

// filterStderr copies lines from r to w, each distinct line once, prefixed.
func filterStderr(r io.Reader, w io.Writer) {
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || seen[line] {
			continue
		}
		seen[line] = true
		if rest, ok := strings.CutPrefix(line, "# Warning: "); ok {
			fmt.Fprintf(w, "routeguard: kustomize: warning: %s\n", printable.Line(rest))
			continue
		}
		fmt.Fprintf(w, "routeguard: %s\n", printable.Line(line))
	}
	_, _ = io.Copy(io.Discard, r)
}
