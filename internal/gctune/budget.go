package gctune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// The memory budget of a run (Input): routeguard holds its input's objects
// until the end and mostly makes garbage around them, so a budget that
// grows with the input lets the collector run a few times per run instead
// of every time the heap grows by 30-70% of the live objects. On the
// synthetic repository of 10,000 objects (3 MB of YAML) the budget is
// about 100 MiB: the collector's share of the CPU fell from 43% to 28%
// for ~9 MB more peak RSS (BENCHMARKS.md, issue 34); GOGC=off with a limit
// of 140 MiB saved more CPU for ~50 MB more.
const (
	BudgetBase   = 64 << 20
	BudgetFactor = 12
)

// Input says that the command has read n bytes of input so far (called by
// internal/guard as it reads): from now on (from the first collection on)
// collect by memory budget. Without Apply, or with GOGC or GOMEMLIMIT in
// the environment, it changes nothing.
func Input(n int64) {
	state.Lock()
	defer state.Unlock()
	if !state.managed || state.envLimit || (state.budget && state.input == n) {
		return
	}
	state.budget, state.input = true, n
	if state.switched {
		state.apply()
	}
}

// EndBudget goes back to proportional collection (the command's guard
// stopped).
func EndBudget() {
	state.Lock()
	defer state.Unlock()
	if !state.budget {
		return
	}
	state.budget, state.input = false, 0
	if state.switched {
		state.apply()
	}
}

// budgetLimit is the memory limit by budget: the input's budget, or the
// live heap grown by the proportional percent plus what is not heap, when
// that is more (a heap larger than the budget is collected as GOGC would),
// never above the ceiling's soft limit. The caller holds state's lock.
func (s *tuneState) budgetLimit(h heapState) int64 {
	limit := BudgetBase + BudgetFactor*s.input
	if grown := h.live + h.live*int64(max(s.percent, 0))/100 + h.nonHeap; grown > limit {
		limit = grown
	}
	if s.soft > 0 && limit > s.soft {
		limit = s.soft
	}
	return limit
}

// arm makes the budget follow the live heap: a sentinel whose finalizer
// (run after the next collection) applies the budget again and re-arms.
// The caller holds state's lock.
func (s *tuneState) arm() {
	if s.armed {
		return
	}
	s.armed = true
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		state.Lock()
		defer state.Unlock()
		state.armed = false
		if state.budget && state.switched {
			state.apply()
		}
	})
}

// heapState is what the budget follows, as of the last collection.
type heapState struct {
	live    int64 // heap bytes marked live by the last collection
	nonHeap int64 // Go memory that is not heap (stacks, metadata, ...)
}

var heapSamples = []string{
	"/gc/heap/live:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/released:bytes",
}

func readHeap() heapState {
	samples := make([]metrics.Sample, len(heapSamples))
	for i, name := range heapSamples {
		samples[i].Name = name
	}
	metrics.Read(samples)
	v := func(i int) int64 {
		if samples[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(samples[i].Value.Uint64())
	}
	return heapState{live: v(0), nonHeap: max(0, v(1)-v(2)-v(3)-v(4)-v(5))}
}

// limitNow reads the memory limit in force (for tests).
func limitNow() int64 { return debug.SetMemoryLimit(-1) }
