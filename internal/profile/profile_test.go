package profile

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestStartWritesBothProfiles: both files are gzip'd pprof protobufs, the
// heap profile carries the allocation made while profiling, and a second
// stop writes nothing more.
func TestStartWritesBothProfiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prof")
	stop, err := Start(dir)
	if err != nil {
		t.Fatal(err)
	}
	sink = make([]byte, 8<<20) // well above the heap profile's sampling rate
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{CPUFile, HeapFile} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s is not a gzip'd profile: %v", name, err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil || len(raw) == 0 {
			t.Fatalf("%s: empty or unreadable profile (%v)", name, err)
		}
		if name == HeapFile && !bytes.Contains(raw, []byte("TestStartWritesBothProfiles")) {
			t.Errorf("heap profile does not name the allocating function")
		}
		st, _ := os.Stat(filepath.Join(dir, name))
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", name, st.Mode().Perm())
		}
	}
	os.Remove(filepath.Join(dir, HeapFile))
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, HeapFile)); !os.IsNotExist(err) {
		t.Errorf("a second stop wrote the heap profile again")
	}
}

func TestStartRefusesAFileAsDirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o600)
	if _, err := Start(file); err == nil {
		t.Fatal("Start accepted a regular file as its directory")
	}
}

// TestMemStatsExact: memstats.txt counts every byte allocated, exactly:
// an allocation of 3 MiB more between start and stop raises
// total_alloc_bytes by at least 3 MiB (a sampled profile could miss or
// overcount it), and the live heap holds what is still referenced.
func TestMemStatsExact(t *testing.T) {
	run := func(extra int) (total, live uint64) {
		dir := filepath.Join(t.TempDir(), "prof")
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		stop, err := Start(dir)
		if err != nil {
			t.Fatal(err)
		}
		sink = make([]byte, extra)
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, MemStatsFile))
		if err != nil {
			t.Fatal(err)
		}
		var mallocs, gcs uint64
		if _, err := fmt.Sscanf(string(data), "total_alloc_bytes %d\nmallocs %d\nlive_heap_bytes %d\nnum_gc %d\n", &total, &mallocs, &live, &gcs); err != nil {
			t.Fatalf("memstats.txt %q: %v", data, err)
		}
		if total < before.TotalAlloc+uint64(extra) || mallocs == 0 {
			t.Fatalf("memstats.txt %q: total below the %d bytes allocated before stop", data, before.TotalAlloc+uint64(extra))
		}
		return total - before.TotalAlloc, live
	}
	small, _ := run(1 << 10)
	big, live := run(3<<20 + 1<<10)
	if big < small || big-small < 3<<20-256<<10 { // the profiles' own allocations vary a little
		t.Errorf("3 MiB more allocated counts %d bytes more", big-small)
	}
	if live < 3<<20 {
		t.Errorf("live heap %d bytes, want the 3 MiB still held", live)
	}
}

var sink []byte
