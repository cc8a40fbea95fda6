// Package profile writes a CPU and a heap profile of one run
// (`routeguard analyze --profile DIR`, or ROUTEGUARD_PROFILE), so that
// anyone can repeat the measurements of BENCHMARKS.md with
// `go tool pprof -top DIR/cpu.pprof` and
// `go tool pprof -sample_index=alloc_space -top DIR/heap.pprof`.
package profile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
)

// Env is the environment variable that turns profiling on when the flag
// is not given.
const Env = "ROUTEGUARD_PROFILE"

// Files written into the profile directory.
const (
	CPUFile  = "cpu.pprof"
	HeapFile = "heap.pprof"
)

// Start creates dir (0700) and starts the CPU profile into dir/cpu.pprof.
// stop ends it and writes dir/heap.pprof (allocations since the start of
// the process, and the heap live after a collection); it may be called
// more than once (a limit's way out and the command's end), only the first
// call writes.
func Start(dir string) (stop func() error, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("profile directory %s: %w", dir, err)
	}
	cpu, err := os.OpenFile(filepath.Join(dir, CPUFile), os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		cpu.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return sync.OnceValue(func() error {
		pprof.StopCPUProfile()
		errCPU := cpu.Close()
		return errors.Join(errCPU, writeHeap(filepath.Join(dir, HeapFile)))
	}), nil
}

func writeHeap(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	runtime.GC() // the live heap as of now, not as of the last collection
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("heap profile: %w", err)
	}
	return f.Close()
}
