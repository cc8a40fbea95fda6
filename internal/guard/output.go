package guard

import (
	"io"
	"sync"
)

// output gates what the process writes on stdout: once the exit hooks
// start (a limit, a signal), nothing more is written, so that a command
// whose plugins or helpers were just killed cannot print a result as if
// it had completed.
var output struct {
	sync.Mutex
	stopping bool
}

// Output returns w gated: a write happens whole before the exit hooks
// start, or not at all after (it is dropped, as the process is exiting).
func Output(w io.Writer) io.Writer { return gatedWriter{w} }

type gatedWriter struct{ w io.Writer }

func (g gatedWriter) Write(p []byte) (int, error) {
	output.Lock()
	defer output.Unlock()
	if output.stopping {
		return len(p), nil
	}
	return g.w.Write(p)
}

// stopOutput closes the gate (waiting for a write in progress).
func stopOutput() {
	output.Lock()
	output.stopping = true
	output.Unlock()
}
