// Package guard turns exhaustion into one message: a watchdog over the
// process's memory and a deadline, so that an input that amplifies (a YAML
// alias bomb, a Helm template loop, a patch fan-out) ends the run with exit
// code 2 and a sentence naming what was being rendered, instead of the Go
// runtime's "out of memory" stack dump or a run that never ends.
//
// Memory is the memory the Go runtime holds (heap, stacks, metadata; not
// the executable's pages), sampled every few milliseconds. By default the
// ceiling is Baseline plus InputFactor times the bytes of input read so far
// (files through internal/confine, standard input), so that any accepted
// input stays within that bound; a fixed ceiling can be given instead.
package guard

import (
	"fmt"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of the automatic memory ceiling.
const (
	Baseline    = 256 << 20
	InputFactor = 20
)

// DefaultTimeout bounds a whole command unless told otherwise.
const DefaultTimeout = 10 * time.Minute

var inputBytes atomic.Int64

// AddInput counts n bytes of input read (from the repository or stdin).
func AddInput(n int) { inputBytes.Add(int64(n)) }

// InputBytes returns the bytes of input read so far.
func InputBytes() int64 { return inputBytes.Load() }

// Limits of one process.
type Limits struct {
	// MaxMemory is a fixed ceiling in bytes; 0 means automatic
	// (Baseline + InputFactor × input read).
	MaxMemory int64
	// Timeout ends the run after this long; 0 means none.
	Timeout time.Duration
}

func (l Limits) ceiling() int64 {
	if l.MaxMemory > 0 {
		return l.MaxMemory
	}
	return Baseline + InputFactor*InputBytes()
}

var (
	activityMu sync.Mutex
	activity   = map[int64]string{}
	nextID     int64
)

// Begin records that label (an app, a release) is being worked on, for the
// message when a limit is reached; end removes it.
func Begin(label string) (end func()) {
	activityMu.Lock()
	nextID++
	id := nextID
	activity[id] = label
	activityMu.Unlock()
	return func() {
		activityMu.Lock()
		delete(activity, id)
		activityMu.Unlock()
	}
}

func current() string {
	activityMu.Lock()
	defer activityMu.Unlock()
	var labels []string
	for _, l := range activity {
		labels = append(labels, l)
	}
	slices.Sort(labels)
	labels = slices.Compact(labels)
	if len(labels) == 0 {
		return ""
	}
	return " while working on " + strings.Join(labels, ", ")
}

// Start watches the process until stop is called. When a limit is passed it
// calls trip once with the message to print (the caller prints it, cleans
// up and exits with code 2).
func Start(l Limits, trip func(msg string)) (stop func()) {
	done := make(chan struct{})
	var once sync.Once
	fire := func(msg string) { once.Do(func() { trip(msg) }) }
	go watch(l, done, fire)
	return func() { close(done) }
}

const memorySample = "/memory/classes/total:bytes"
const releasedSample = "/memory/classes/heap/released:bytes"

func watch(l Limits, done <-chan struct{}, fire func(string)) {
	samples := []metrics.Sample{{Name: memorySample}, {Name: releasedSample}}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	var deadline <-chan time.Time
	if l.Timeout > 0 {
		t := time.NewTimer(l.Timeout)
		defer t.Stop()
		deadline = t.C
	}
	for {
		select {
		case <-done:
			return
		case <-deadline:
			fire(fmt.Sprintf("stopped after %s%s: the run took longer than its time limit (a template loop or a patch that fans out?); "+
				"raise --timeout if the app is legitimate", l.Timeout, current()))
			return
		case <-tick.C:
			// An observer only: the collector's own settings (internal/gctune)
			// stay as they are.
			limit := l.ceiling()
			metrics.Read(samples)
			used := int64(samples[0].Value.Uint64()) - int64(samples[1].Value.Uint64())
			if used > limit {
				fire(fmt.Sprintf("stopped%s: memory use passed %d MiB (%s); the input amplifies beyond what routeguard accepts "+
					"(an alias bomb, a template loop?); raise --max-memory if the app is legitimate",
					current(), used>>20, describe(l)))
				return
			}
		}
	}
}

func describe(l Limits) string {
	if l.MaxMemory > 0 {
		return fmt.Sprintf("the --max-memory limit is %d MiB", l.MaxMemory>>20)
	}
	return fmt.Sprintf("the limit is %d MiB + %d × the %d KiB of input read", Baseline>>20, InputFactor, InputBytes()>>10)
}
