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
//
// The ceiling is soft: it is also the collector's memory limit
// (internal/gctune), so that garbage is collected before it counts, and
// only memory really held stops the run, with routeguard's message naming
// what was being worked on (Begin) and the last input read (Reading),
// before the Go runtime's own "out of memory" crash. The input read so far
// also sets the collector's memory budget below that limit
// (gctune.Input). A signal (SIGINT,
// SIGTERM) ends the run the same way. Every way out runs the functions
// registered with AtExit (temporary directories, plugin processes).
package guard

import (
	"fmt"
	"os"
	"os/signal"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/routeguard/routeguard/internal/gctune"
	"github.com/routeguard/routeguard/internal/printable"
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

var lastInput atomic.Pointer[string]

// Reading records that the input name (a file of the repository, standard
// input) is being read, and counts its n bytes (AddInput): the message of a
// limit names the last input read, where an input that amplifies (a YAML
// file of tiny nodes, a chart) usually is.
func Reading(name string, n int) {
	lastInput.Store(&name)
	AddInput(n)
}

// Limits of one process.
type Limits struct {
	// MaxMemory is a fixed ceiling in bytes; 0 means automatic
	// (Baseline + InputFactor × input read).
	MaxMemory int64
	// Timeout ends the run after this long; 0 means none.
	Timeout time.Duration

	deadline time.Time // Start's time + Timeout
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
	var out string
	if len(labels) > 0 {
		const shown = 5
		if len(labels) > shown {
			labels = append(labels[:shown], fmt.Sprintf("%d more", len(labels)-shown))
		}
		out = " while working on " + strings.Join(labels, ", ")
	}
	if in := lastInput.Load(); in != nil {
		out += " (last input read: " + *in + ")"
	}
	return printable.String(out)
}

// active is what the running Start watches (nil: nothing).
var active atomic.Pointer[Limits]

// Active returns the limits the running watchdog enforces, with the
// timeout turned into a deadline (zero: none), for a helper process to
// enforce the same (Kustomize's helm calls); ok is false without one.
func Active() (maxMemory int64, deadline time.Time, ok bool) {
	l := active.Load()
	if l == nil {
		return 0, time.Time{}, false
	}
	return l.MaxMemory, l.deadline, true
}

// Start watches the process until stop is called. When a limit is passed,
// or SIGINT or SIGTERM arrives, it calls trip once with the message to
// print (the caller prints it, runs the AtExit functions and exits with
// code 2).
func Start(l Limits, trip func(msg string)) (stop func()) {
	done := make(chan struct{})
	var once sync.Once
	fire := func(msg string) { once.Do(func() { trip(msg) }) }
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	if l.Timeout > 0 {
		l.deadline = time.Now().Add(l.Timeout)
	}
	active.Store(&l)
	go watch(l, done, sig, fire)
	return sync.OnceFunc(func() {
		active.CompareAndSwap(&l, nil)
		signal.Stop(sig)
		close(done)
		gctune.SoftLimit(0)
		gctune.EndBudget()
	})
}

const memorySample = "/memory/classes/total:bytes"
const releasedSample = "/memory/classes/heap/released:bytes"

// softLimit is the collector's memory limit for a ceiling: an eighth below
// it, so that the collector works hard before garbage can reach it.
func softLimit(ceiling int64) int64 { return ceiling - ceiling/8 }

func watch(l Limits, done <-chan struct{}, sig <-chan os.Signal, fire func(string)) {
	samples := []metrics.Sample{{Name: memorySample}, {Name: releasedSample}}
	soft := int64(0)
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
		case s := <-sig:
			fire(fmt.Sprintf("stopped before finishing (%s)%s; nothing was printed on stdout", signalName(s), current()))
			return
		case <-deadline:
			fire(fmt.Sprintf("stopped after %s%s: the run took longer than its time limit (a template loop or a patch that fans out?); "+
				"raise --timeout if the app is legitimate", l.Timeout, current()))
			return
		case <-tick.C:
			// An observer only: the collector's own settings (internal/gctune)
			// stay as they are.
			limit := l.ceiling()
			// A new soft limit when the ceiling moved by 1 MiB or more
			// (the automatic one grows with every file read).
			if d := softLimit(limit) - soft; d >= 1<<20 || d <= -(1<<20) {
				soft = softLimit(limit)
				gctune.SoftLimit(soft)
			}
			// The collector's budget follows the input read.
			gctune.Input(InputBytes())
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

func signalName(s os.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "SIGTERM"
	case os.Interrupt:
		return "SIGINT"
	}
	return s.String()
}
