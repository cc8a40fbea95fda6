package affected

import (
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/printable"
)

// Request is what a review is asked of the changes (--changed-from,
// --changed-files), shared by argocd diff and flux diff.
type Request struct {
	// Affected builds at base only what the change can affect; the rest
	// takes head's result.
	Affected bool
	// Listed are the changed paths the caller gave (--changed-files; nil:
	// none): the paths that differ between the trees are taken too.
	Listed *Changes
	// MaxFileBytes caps each file compared (the builds' limit).
	MaxFileBytes int64
}

// Collect returns the paths that differ between the trees at base and
// head, with the listed ones, and a warning when the list misses some.
func (q Request) Collect(base, head string) (*Changes, []notice.Notice, error) {
	changes, err := Between(base, head, q.MaxFileBytes)
	if err != nil {
		return nil, nil, err
	}
	var notes []notice.Notice
	if q.Listed != nil {
		if missed := changes.Missing(q.Listed); len(missed) > 0 {
			notes = append(notes, notice.Notice{Level: notice.Warning, Text: fmt.Sprintf("--changed-files does not list %d path(s) that differ between the revisions (%s): taken as changed too", len(missed), FirstPaths(missed))})
		}
		changes = changes.Add(q.Listed.Paths())
	}
	return changes, notes, nil
}

// Tally counts the apps of both revisions of a review by key: built at
// each revision that has them, unaffected (taken from head at base), or
// not buildable (at one of them).
type Tally struct {
	status map[string]int
}

const (
	tallyBuilt = iota + 1
	tallyReused
	tallyUnbuildable
)

// Add counts one app of one revision.
func (t *Tally) Add(key string, buildable, reused bool) {
	if t.status == nil {
		t.status = map[string]int{}
	}
	switch s := t.status[key]; {
	case !buildable:
		t.status[key] = tallyUnbuildable
	case s == tallyUnbuildable:
	case reused:
		t.status[key] = tallyReused
	case s == 0:
		t.status[key] = tallyBuilt
	}
}

// Counts are the apps built, unaffected and not buildable.
func (t *Tally) Counts() (built, unaffected, notBuildable int) {
	for _, s := range t.status {
		switch s {
		case tallyUnbuildable:
			notBuildable++
		case tallyReused:
			unaffected++
		default:
			built++
		}
	}
	return built, unaffected, notBuildable
}

// FirstPaths names the first few paths, escaped, and how many more.
func FirstPaths(paths []string) string {
	const n = 5
	var parts []string
	for i, p := range paths {
		if i == n {
			parts = append(parts, fmt.Sprintf("and %d more", len(paths)-n))
			break
		}
		parts = append(parts, printable.Line(printable.Cut(p, 200)))
	}
	return strings.Join(parts, ", ")
}
