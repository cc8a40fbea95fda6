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
	t.Cleanup(func() {
		debug.SetGCPercent(pct)
		debug.SetMemoryLimit(limit)
	})
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
	// Finalizers run on their own goroutine after a collection: wait for
	// it, collecting again now and then, for up to 10 s.
	for i := 0; i < 1000 && debug.SetMemoryLimit(-1) != math.MaxInt64; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
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
