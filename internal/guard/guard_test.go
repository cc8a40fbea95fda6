package guard

import (
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/routeguard/routeguard/internal/gctune"
)

func TestMemoryCeiling(t *testing.T) {
	got := make(chan string, 1)
	stop := Start(Limits{MaxMemory: 64 << 20}, func(msg string) { got <- msg })
	defer stop()
	end := Begin("apps/bomb")
	defer end()
	var hold [][]byte
	for i := 0; i < 400; i++ {
		hold = append(hold, make([]byte, 1<<20))
		for j := range hold[i] {
			hold[i][j] = byte(j)
		}
		select {
		case msg := <-got:
			if !strings.Contains(msg, "while working on apps/bomb") || !strings.Contains(msg, "--max-memory limit is 64 MiB") {
				t.Fatalf("message %q", msg)
			}
			return
		default:
		}
	}
	time.Sleep(100 * time.Millisecond)
	select {
	case <-got:
	default:
		t.Fatalf("400 MiB held, the 64 MiB ceiling never tripped")
	}
	_ = hold
}

func TestDeadline(t *testing.T) {
	got := make(chan string, 1)
	stop := Start(Limits{MaxMemory: 1 << 40, Timeout: 50 * time.Millisecond}, func(msg string) { got <- msg })
	defer stop()
	select {
	case msg := <-got:
		if !strings.Contains(msg, "stopped after 50ms") {
			t.Fatalf("message %q", msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the deadline never tripped")
	}
}

func TestAutomaticCeilingGrowsWithInput(t *testing.T) {
	before := Limits{}.ceiling()
	AddInput(1 << 20)
	if after := (Limits{}).ceiling(); after-before != InputFactor<<20 {
		t.Fatalf("ceiling grew by %d, want %d", after-before, InputFactor<<20)
	}
}

// The collector's memory limit is the budget of the input read
// (gctune.Input) once gctune has switched from its start-up mode, never
// above the ceiling's soft limit (an eighth below it); the message names
// the last input read.
func TestSoftLimitAndLastInput(t *testing.T) {
	prevPct, prevLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(prevPct); debug.SetMemoryLimit(prevLimit); gctune.EndBudget() })
	gctune.Apply(func(string) (string, bool) { return "", false })
	got := make(chan string, 1)
	waitLimit := func(want func() int64) {
		t.Helper()
		for i := 0; i < 1000 && debug.SetMemoryLimit(-1) != want(); i++ {
			runtime.GC() // the first collection switches gctune's mode
			time.Sleep(10 * time.Millisecond)
		}
		if limit := debug.SetMemoryLimit(-1); limit != want() {
			t.Fatalf("memory limit %d, want %d", limit, want())
		}
	}
	stop := Start(Limits{MaxMemory: 512 << 20}, func(msg string) { got <- msg })
	waitLimit(func() int64 { return gctune.BudgetBase + gctune.BudgetFactor*InputBytes() })
	stop()
	if limit := debug.SetMemoryLimit(-1); limit != math.MaxInt64 {
		t.Fatalf("after stop the memory limit is still %d", limit)
	}
	// A ceiling below the budget: its soft limit.
	tripped := make(chan string, 1)
	stop = Start(Limits{MaxMemory: 56 << 20}, func(msg string) { tripped <- msg })
	waitLimit(func() int64 { return 56<<20 - 7<<20 })
	stop()

	Reading("apps/big/nodes.yaml", 10)
	stop = Start(Limits{MaxMemory: 1}, func(msg string) { got <- msg })
	defer stop()
	select {
	case msg := <-got:
		if !strings.Contains(msg, "(last input read: apps/big/nodes.yaml)") {
			t.Fatalf("message %q does not name the last input", msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a 1-byte ceiling never tripped")
	}
}
