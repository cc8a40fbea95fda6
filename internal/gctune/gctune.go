// Package gctune sets the garbage collector's defaults for routeguard's
// binaries, which are short-lived batch processes: most runs (an app of a
// few dozen objects, one Argo CD manifest generation) end before their heap
// reaches a few MB, while a large repository holds tens of MB of objects
// until the analysis ends.
//
// Go's default (GOGC=100) collects first at 4 MB and lets the heap grow to
// twice the live set. routeguard instead:
//
//   - does not collect until the process's Go memory reaches StartLimit:
//     small runs never pay for a collection (package initialisation alone
//     triggers two or three; 7 of the 40 ms of `routeguard analyze` on an
//     example app with context paths went to the collector);
//   - from the first collection on, runs with GOGC=GCPercent (70) and no
//     memory limit: on 10,000 objects the peak RSS is ~8 MB lower than with
//     100, at no measurable cost in time (50 saves ~5 MB more for ~15% more
//     time). See docs/analysis-bench.md;
//   - once the objects are all decoded (Settled, called by the commands
//     that analyze), collects at SettledGCPercent (30): from then on the
//     live heap hardly grows and the analysis mostly makes garbage, which
//     would otherwise grow the heap by 70% of the objects. On 10,000
//     objects this takes ~11 MB off routeguard's peak (117-123 -> 106-110
//     MB) for ~0-5% more time. The Istio plugin does not use it: its peak
//     is lower, and its analysis is on the critical path (+9% wall time).
//
// A memory ceiling (SoftLimit, set by internal/guard from --max-memory)
// becomes the collector's memory limit once collection runs: near the
// ceiling the collector works harder instead of letting garbage push the
// process over it, so that only memory that is really held stops a run.
//
// Once the size of the input is known (Input, called by internal/guard
// while it watches a command), routeguard collects by memory budget
// instead of proportionally (budget.go): GOGC off, and a memory limit of
// BudgetBase + BudgetFactor × the input (or the live heap grown by the
// percent above, when that is more), below the ceiling's. The collector
// then runs only when the budget is used up: on 10,000 objects its share
// of the CPU fell from 43% (GOGC 30) to 28%.
//
// GOGC or GOMEMLIMIT in the environment leave the collector as the user
// set it (GOGC alone still gets the ceiling as its memory limit).
package gctune

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync"
)

// GCPercent is the GOGC routeguard runs with once its heap is large.
const GCPercent = 70

// SettledGCPercent is the GOGC while the analysis runs over objects that
// are all decoded (Settled).
const SettledGCPercent = 30

// state is what Apply took charge of.
var state tuneState

type tuneState struct {
	sync.Mutex
	managed    bool  // Apply set the defaults (the environment did not)
	switched   bool  // the first collection has run: proportional mode
	percent    int   // the GOGC of proportional mode
	settledFor int   // Settled calls not yet undone
	envLimit   bool  // GOMEMLIMIT is set: SoftLimit changes nothing
	soft       int64 // SoftLimit's ceiling (0: none)
	budget     bool  // collect by memory budget (Input, managed only)
	input      int64 // bytes of input read (Input)
	armed      bool  // a sentinel re-applies the budget after each collection
}

// StartLimit is the Go memory (heap and runtime) below which no collection
// runs.
const StartLimit = 32 << 20

// Apply sets the defaults unless the environment (read with lookupEnv)
// sets GOGC or GOMEMLIMIT. Call it first in main.
func Apply(lookupEnv func(string) (string, bool)) {
	_, gogc := lookupEnv("GOGC")
	_, memlimit := lookupEnv("GOMEMLIMIT")
	state.Lock()
	defer state.Unlock()
	state.envLimit = memlimit
	if gogc {
		state.switched = true // the user's collector: SoftLimit applies at once
		return
	}
	state.managed, state.percent = true, GCPercent
	if memlimit {
		state.switched = true
		debug.SetGCPercent(GCPercent)
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(StartLimit)
	// The finalizer runs after the first collection (the one the limit
	// triggers) and switches to proportional collection without a limit.
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		state.Lock()
		defer state.Unlock()
		state.switched = true
		state.apply()
	})
}

// apply sets the collector for the state once collection runs (managed
// and switched): by budget, or proportionally. The caller holds state's
// lock.
func (s *tuneState) apply() {
	if s.budget {
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(s.budgetLimit(readHeap()))
		s.arm()
		return
	}
	debug.SetGCPercent(s.percent)
	debug.SetMemoryLimit(s.limit())
}

// SoftLimit makes ceiling (bytes; 0 for none) the collector's memory limit
// from the first collection on (before it, StartLimit stays, being lower).
// With GOMEMLIMIT in the environment, or before Apply, it changes nothing.
func SoftLimit(ceiling int64) {
	state.Lock()
	defer state.Unlock()
	if state.envLimit || state.soft == ceiling {
		return
	}
	state.soft = ceiling
	switch {
	case state.switched && state.managed:
		state.apply()
	case state.switched:
		debug.SetMemoryLimit(state.limit())
	}
}

// limit is the memory limit of proportional mode. The caller holds
// state's lock.
func (s *tuneState) limit() int64 {
	if s.soft > 0 {
		return s.soft
	}
	return math.MaxInt64
}

// Settled says that the objects are all decoded and the analysis starts:
// from now on collect at SettledGCPercent. The returned func undoes it.
// Without Apply (GOGC set, tests, library use) it changes nothing; before
// the first collection (a small run) it only takes effect if that
// collection comes.
func Settled() (undo func()) {
	state.Lock()
	defer state.Unlock()
	if !state.managed {
		return func() {}
	}
	state.settledFor++
	set(SettledGCPercent)
	return sync.OnceFunc(func() {
		state.Lock()
		defer state.Unlock()
		if state.settledFor--; state.settledFor == 0 {
			set(GCPercent)
		}
	})
}

// set records the proportional-mode percent and applies it if that mode
// is on. The caller holds state's lock.
func set(p int) {
	state.percent = p
	if state.switched {
		state.apply()
	}
}

// sentinel is allocated only to be collected; it holds a pointer so that
// it is not packed into a shared tiny block (whose finalizers may run late).
type sentinel struct {
	_ *int
	_ [2]uintptr
}
