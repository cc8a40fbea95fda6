package resultcache

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// BuildID returns the Go build ID of the running executable, which the go
// command derives from the content of every input of the build: two builds
// that could validate differently have different IDs, whatever their
// version says. The linker writes it near the start of the file, where the
// go command looks for it too (cmd/go/internal/buildid).
var BuildID = sync.OnceValues(func() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding routeguard's executable: %w", err)
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", fmt.Errorf("reading routeguard's build ID: %w", err)
	}
	defer f.Close()
	if ef, err := elf.NewFile(f); err == nil {
		if id, ok := elfBuildID(ef); ok {
			return id, nil
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", fmt.Errorf("reading routeguard's build ID: %w", err)
	}
	return readBuildID(f)
})

// elfBuildID reads the build ID from the ELF note the Go linker writes
// (.note.go.buildid: name "Go", type 4, the ID as its description).
func elfBuildID(f *elf.File) (string, bool) {
	sec := f.Section(".note.go.buildid")
	if sec == nil {
		return "", false
	}
	data, err := sec.Data()
	if err != nil || len(data) < 16 {
		return "", false
	}
	order := f.ByteOrder
	namesz, descsz, typ := order.Uint32(data[0:]), order.Uint32(data[4:]), order.Uint32(data[8:])
	if namesz != 4 || typ != 4 || string(data[12:16]) != "Go\x00\x00" || uint64(len(data)) < 16+uint64(descsz) || descsz == 0 {
		return "", false
	}
	return string(data[16 : 16+descsz]), true
}

var (
	buildIDPrefix = []byte("\xff Go build ID: \"")
	buildIDSuffix = []byte("\"\n \xff")
)

// readBuildID finds the build ID in the first 64 KiB of r (where the
// linker writes it in executables other than ELF).
func readBuildID(r io.Reader) (string, error) {
	head := make([]byte, 64<<10)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "", fmt.Errorf("reading routeguard's build ID: %w", err)
	}
	head = head[:n]
	i := bytes.Index(head, buildIDPrefix)
	if i < 0 {
		return "", errors.New("routeguard's executable has no Go build ID")
	}
	rest := head[i+len(buildIDPrefix):]
	j := bytes.Index(rest, buildIDSuffix)
	if j <= 0 || j > 1024 {
		return "", errors.New("routeguard's executable has no readable Go build ID")
	}
	return string(rest[:j]), nil
}
