package guard

import (
	"strings"
	"testing"
	"time"
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
