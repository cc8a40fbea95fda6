package profile

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
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

var sink []byte
