package confine

import (
	"path"
	"slices"
	"strings"
)

// ObservationKind is what a render looked at of a path.
type ObservationKind uint8

// The kinds of Observation.
const (
	ObservedContent ObservationKind = ObservationKind(opRead)  // a file's content
	ObservedStat    ObservationKind = ObservationKind(opStat)  // existence, type and size (links followed)
	ObservedLstat   ObservationKind = ObservationKind(opLstat) // existence and type of the path itself
	ObservedListing ObservationKind = ObservationKind(opList)  // the names and types in a directory
	ObservedGlob    ObservationKind = ObservationKind(opGlob)  // the matches of a pattern
	ObservedTarget  ObservationKind = ObservationKind(opReal)  // where a path leads, links resolved
)

// Observation is one thing a traced render looked at: Path is relative to
// the root, slash-separated (a pattern for ObservedGlob).
type Observation struct {
	Kind ObservationKind
	Path string
}

// Observations returns what t recorded, sorted by path then kind (nil for
// a nil trace). Whether the trace is complete is OpaqueReason's to say.
func (t *Trace) Observations() []Observation {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	out := make([]Observation, 0, len(t.obs))
	for o := range t.obs {
		out = append(out, Observation{Kind: ObservationKind(o.op), Path: o.path})
	}
	t.mu.Unlock()
	slices.SortFunc(out, func(x, y Observation) int {
		if c := strings.Compare(x.Path, y.Path); c != 0 {
			return c
		}
		return int(x.Kind) - int(y.Kind)
	})
	return out
}

// AddUnder adds every observation of from (a trace relative to a
// directory prefix, a slash path below t's root) to t, under prefix, and
// from's opacity.
func (t *Trace) AddUnder(from *Trace, prefix string) {
	if t == nil || from == nil {
		return
	}
	for _, o := range from.Observations() {
		p := o.Path
		if o.Kind != ObservedGlob || !path.IsAbs(p) {
			p = path.Join(prefix, p)
		}
		t.add(op(o.Kind), p)
	}
	if r := from.OpaqueReason(); r != "" {
		t.Opaque(r)
	}
}

// Record adds an observation of abs (a path inside the root dir) that a
// caller made outside the traced reader (os.Stat of a directory, a file
// read through another root); a path outside dir makes the trace opaque.
func (t *Trace) Record(kind ObservationKind, dir, abs string) {
	if t == nil {
		return
	}
	rel, ok := relTo(dir, abs)
	if !ok {
		t.Opaque("read " + abs + ", outside the repository")
		return
	}
	t.add(op(kind), rel)
}
