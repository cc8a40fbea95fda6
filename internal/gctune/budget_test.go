package gctune

import (
	"math"
	"runtime"
	"testing"
)

// TestBudget: with the input known, collection is by budget once the
// first collection has run (GOGC off, the budget as memory limit), never
// above the ceiling's soft limit; a live heap beyond the budget raises
// the limit proportionally; EndBudget goes back to GCPercent.
func TestBudget(t *testing.T) {
	restore(t)
	Apply(func(string) (string, bool) { return "", false })
	const input = 4 << 20
	Input(input)
	if p, limit := percent(), limitNow(); p != -1 || limit != StartLimit {
		t.Fatalf("before the first collection: percent %d, limit %d; want -1 and the start limit", p, limit)
	}
	waitSwitch(t)
	want := int64(BudgetBase + BudgetFactor*input)
	if p, limit := percent(), limitNow(); p != -1 || limit != want {
		t.Fatalf("by budget: percent %d, limit %d; want -1 and %d", p, limit, want)
	}
	SoftLimit(want / 2)
	if limit := limitNow(); limit != want/2 {
		t.Fatalf("soft limit below the budget: limit %d, want the soft limit %d", limit, want/2)
	}
	SoftLimit(0)

	// A live heap larger than the budget: the limit follows it after the
	// next collection (the re-armed sentinel).
	big := make([][]byte, 0, 64)
	for range 64 {
		big = append(big, make([]byte, (want/64)+(1<<20)))
	}
	for range 3 {
		runtime.GC()
		runtime.Gosched()
	}
	waitFor(t, func() bool { return limitNow() > want })
	runtime.KeepAlive(big)

	EndBudget()
	if p, limit := percent(), limitNow(); p != GCPercent || limit != math.MaxInt64 {
		t.Fatalf("budget ended: percent %d, limit %d; want %d and none", p, limit, GCPercent)
	}
}

// TestBudgetRespectsEnvironment: GOGC or GOMEMLIMIT leave the collector
// as the user set it.
func TestBudgetRespectsEnvironment(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		restore(t)
		Apply(func(k string) (string, bool) { return "200", k == env })
		waitSwitch(t)
		before, limit := percent(), limitNow()
		Input(1 << 20)
		if p, l := percent(), limitNow(); p != before || l != limit {
			t.Errorf("%s set: Input changed percent %d -> %d, limit %d -> %d", env, before, p, limit, l)
		}
	}
}

func TestBudgetLimit(t *testing.T) {
	s := tuneState{percent: 30, input: 10 << 20}
	base := int64(BudgetBase + BudgetFactor*(10<<20))
	for _, tc := range []struct {
		name string
		soft int64
		h    heapState
		want int64
	}{
		{"small live heap: the budget", 0, heapState{live: 20 << 20, nonHeap: 5 << 20}, base},
		{"large live heap: grown by the percent", 0, heapState{live: 200 << 20, nonHeap: 10 << 20}, 200<<20 + 60<<20 + 10<<20},
		{"never above the soft limit", 150 << 20, heapState{live: 200 << 20}, 150 << 20},
	} {
		s.soft = tc.soft
		if got := s.budgetLimit(tc.h); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 500 {
		if cond() {
			return
		}
		runtime.GC()
	}
	t.Fatal("condition not reached after 500 collections")
}
