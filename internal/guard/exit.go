package guard

import (
	"slices"
	"sync"
)

// The functions to run on the way out of the process: removing the private
// temporary directory, killing plugin processes and what they started.
var exitHooks struct {
	sync.Mutex
	next int
	fns  map[int]func()
	ran  bool
	done chan struct{} // closed when the hooks have run
}

// AtExit registers fn to run when the process ends through RunExitHooks:
// a limit or a signal (through the trip function of Start), the command's
// own end, a recovered panic. The returned func unregisters fn (a plugin
// that was stopped normally). Functions registered after the hooks ran
// run at once: the process is on its way out.
func AtExit(fn func()) (remove func()) {
	exitHooks.Lock()
	if exitHooks.ran {
		exitHooks.Unlock()
		fn()
		return func() {}
	}
	if exitHooks.fns == nil {
		exitHooks.fns = map[int]func(){}
	}
	id := exitHooks.next
	exitHooks.next++
	exitHooks.fns[id] = fn
	exitHooks.Unlock()
	return func() {
		exitHooks.Lock()
		delete(exitHooks.fns, id)
		exitHooks.Unlock()
	}
}

// RunExitHooks runs every registered function once, the latest registered
// first, and returns when they have all run. Later calls, from any
// goroutine (a limit trips while the command returns), wait for the first
// to finish: nobody exits while a directory is half removed.
func RunExitHooks() {
	exitHooks.Lock()
	if exitHooks.done == nil {
		exitHooks.done = make(chan struct{})
	}
	done := exitHooks.done
	if exitHooks.ran {
		exitHooks.Unlock()
		<-done
		return
	}
	defer close(done)
	exitHooks.ran = true
	stopOutput()
	ids := make([]int, 0, len(exitHooks.fns))
	for id := range exitHooks.fns {
		ids = append(ids, id)
	}
	fns := exitHooks.fns
	exitHooks.fns = nil
	exitHooks.Unlock()
	slices.Sort(ids)
	for _, id := range slices.Backward(ids) {
		fns[id]()
	}
}
