// Package profile writes a CPU and a heap profile of one run
// (`routeguard analyze --profile DIR`, or ROUTEGUARD_PROFILE), so that
// anyone can repeat the measurements of BENCHMARKS.md with
// `go tool pprof -top DIR/cpu.pprof` and
// `go tool pprof -sample_index=alloc_space -top DIR/heap.pprof`, with the
// exact totals of the run's allocations in DIR/memstats.txt (the heap
// profile samples one allocation in about 512 kB: its totals vary by
// a few percent from run to run, too much to compare two builds by).
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
	// MemStatsFile holds the runtime's exact counts: bytes and objects
	// allocated since the start of the process, the heap live after a
	// collection, the collections.
	MemStatsFile = "memstats.txt"
)

// Start creates dir (0700) and starts the CPU profile into dir/cpu.pprof.
// stop ends it and writes dir/heap.pprof (allocations since the start of
// the process, and the heap live after a collection) and dir/memstats.txt;
// it may be called
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
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		errHeap := writeHeap(filepath.Join(dir, HeapFile))
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		return errors.Join(errCPU, errHeap, writeMemStats(filepath.Join(dir, MemStatsFile), &before, &after))
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

// writeMemStats writes the totals of before (read before the heap
// profile's collection, so neither the collection nor the profile is
// counted) and the live heap of after (read after it), one "name value"
// a line.
func writeMemStats(path string, before, after *runtime.MemStats) error {
	text := fmt.Sprintf("total_alloc_bytes %d\nmallocs %d\nlive_heap_bytes %d\nnum_gc %d\n",
		before.TotalAlloc, before.Mallocs, after.HeapAlloc, before.NumGC)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return fmt.Errorf("memory statistics: %w", err)
	}
	return nil
}
