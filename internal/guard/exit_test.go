package guard

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// Hooks run once, latest first; a second caller (the watchdog tripping
// while the command returns) waits until they have all run; a hook added
// after runs at once; stdout written after they start is dropped.
func TestExitHooks(t *testing.T) {
	var mu sync.Mutex
	var order []string
	note := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	release := make(chan struct{})
	AtExit(func() { <-release; note("first registered") })
	remove := AtExit(func() { note("removed") })
	AtExit(func() { note("last registered") })
	remove()
	var out strings.Builder
	stdout := Output(&out)
	stdout.Write([]byte("before;"))
	first := make(chan struct{})
	go func() { RunExitHooks(); close(first) }()
	second := make(chan struct{})
	go func() {
		for { // wait until the first run has started
			exitHooks.Lock()
			ran := exitHooks.ran
			exitHooks.Unlock()
			if ran {
				break
			}
			time.Sleep(time.Millisecond)
		}
		RunExitHooks()
		close(second)
	}()
	select {
	case <-second:
		t.Fatal("a second RunExitHooks returned while the hooks were still running")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-first
	<-second
	AtExit(func() { note("after") })
	if n, err := stdout.Write([]byte("after")); n != 5 || err != nil || out.String() != "before;" {
		t.Fatalf("stdout after the hooks: %q (write %d, %v); want the later write dropped", out.String(), n, err)
	}
	want := []string{"last registered", "first registered", "after"}
	if len(order) != len(want) {
		t.Fatalf("ran %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("ran %v, want %v", order, want)
		}
	}
}
