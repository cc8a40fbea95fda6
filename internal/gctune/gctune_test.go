package gctune

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func restore(t *testing.T) {
	pct, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	reset := func() {
		state.Lock()
		state.managed, state.switched, state.percent, state.settledFor = false, false, 0, 0
		state.envLimit, state.soft = false, 0
		state.budget, state.input, state.armed = false, 0, false
		state.Unlock()
	}
	reset()
	t.Cleanup(func() {
		debug.SetGCPercent(pct)
		debug.SetMemoryLimit(limit)
		reset()
	})
}

// waitSwitch collects until Apply's finalizer has switched to proportional
// mode (finalizers run on their own goroutine after a collection), for up
// to 10 s.
func waitSwitch(t *testing.T) {
	t.Helper()
	for i := 0; i < 1000; i++ {
		state.Lock()
		done := state.switched
		state.Unlock()
		if done {
			return
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the first collection never switched to proportional mode")
}

func percent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// TestApply: no collection below StartLimit, then GOGC=GCPercent without a
// limit once the first collection has run.
func TestApply(t *testing.T) {
	restore(t)
	Apply(func(string) (string, bool) { return "", false })
	if pct := debug.SetGCPercent(-1); pct != -1 {
		t.Fatalf("GC percent %d right after Apply, want -1 (off until the start limit)", pct)
	}
	if limit := debug.SetMemoryLimit(-1); limit != StartLimit {
		t.Fatalf("memory limit %d, want %d", limit, StartLimit)
	}
	waitSwitch(t)
	if limit := debug.SetMemoryLimit(-1); limit != math.MaxInt64 {
		t.Fatalf("after collections the memory limit is still %d", limit)
	}
	if pct := debug.SetGCPercent(100); pct != GCPercent {
		t.Fatalf("after the first collection the GC percent is %d, want %d", pct, GCPercent)
	}
}

func TestApplyRespectsEnvironment(t *testing.T) {
	restore(t)
	Apply(func(k string) (string, bool) { return "200", k == "GOGC" })
	if pct, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1); pct != 100 || limit != math.MaxInt64 {
		t.Errorf("with GOGC set: percent %d, limit %d; want them untouched", pct, limit)
	}
	Apply(func(k string) (string, bool) { return "1GiB", k == "GOMEMLIMIT" })
	if pct, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1); pct != GCPercent || limit != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT set: percent %d, limit %d; want %d and no limit from routeguard", pct, limit, GCPercent)
	}
}

// TestSettled: the analysis phase collects at SettledGCPercent until every
// Settled call is undone; before the first collection it waits for it;
// without Apply it does nothing.
func TestSettled(t *testing.T) {
	restore(t)
	undoNone := Settled()
	if p := percent(); p != 100 {
		t.Fatalf("Settled without Apply changed the GC percent to %d", p)
	}
	undoNone()

	Apply(func(string) (string, bool) { return "", false })
	early := Settled()
	if p := percent(); p != -1 {
		t.Fatalf("Settled before the first collection turned collection on (percent %d)", p)
	}
	waitSwitch(t)
	if p := percent(); p != SettledGCPercent {
		t.Fatalf("after the first collection, with Settled pending: percent %d, want %d", p, SettledGCPercent)
	}
	second := Settled()
	early()
	early() // undo is idempotent
	if p := percent(); p != SettledGCPercent {
		t.Fatalf("one of two Settled undone: percent %d, want %d", p, SettledGCPercent)
	}
	second()
	if p := percent(); p != GCPercent {
		t.Fatalf("all Settled undone: percent %d, want %d", p, GCPercent)
	}
}

// TestSoftLimit: the ceiling becomes the memory limit once collection
// runs (not before: the start limit is lower), is cleared with 0, and is
// left alone when GOMEMLIMIT is set.
func TestSoftLimit(t *testing.T) {
	restore(t)
	Apply(func(string) (string, bool) { return "", false })
	SoftLimit(512 << 20)
	if limit := debug.SetMemoryLimit(-1); limit != StartLimit {
		t.Fatalf("before the first collection the memory limit is %d, want the start limit %d", limit, StartLimit)
	}
	waitSwitch(t)
	if limit := debug.SetMemoryLimit(-1); limit != 512<<20 {
		t.Fatalf("after the first collection the memory limit is %d, want the soft limit %d", limit, 512<<20)
	}
	SoftLimit(600 << 20)
	if limit := debug.SetMemoryLimit(-1); limit != 600<<20 {
		t.Fatalf("a new soft limit left the memory limit at %d", limit)
	}
	SoftLimit(0)
	if limit := debug.SetMemoryLimit(-1); limit != math.MaxInt64 {
		t.Fatalf("soft limit cleared, memory limit %d", limit)
	}

	restore(t)
	Apply(func(k string) (string, bool) { return "1GiB", k == "GOMEMLIMIT" })
	SoftLimit(512 << 20)
	if limit := debug.SetMemoryLimit(-1); limit != math.MaxInt64 {
		t.Fatalf("with GOMEMLIMIT set the soft limit changed the memory limit to %d", limit)
	}

	restore(t)
	Apply(func(k string) (string, bool) { return "off", k == "GOGC" })
	SoftLimit(512 << 20)
	if pct, limit := percent(), debug.SetMemoryLimit(-1); pct != 100 || limit != 512<<20 {
		t.Fatalf("with GOGC set: percent %d, limit %d; want GOGC untouched and the soft limit", pct, limit)
	}
}
