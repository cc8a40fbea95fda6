package resultcache

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// A pack holds the results one run wrote:
//
//	packMagic
//	count          uint32, big endian
//	count records  entry key (32 bytes), SHA-256 of the value (32 bytes),
//	               offset uint64, length uint32 — sorted by key
//	values         at their offsets
//
// It is written to a temporary file (0600) and renamed into place, so a
// reader sees a whole pack or none. Every value is checked against its
// SHA-256 when it is read, and every record against the file's size and
// the entry bound when the index is read.
const (
	packMagic  = "routeguard-result-pack v1\n"
	packPrefix = "pack-"
	recordSize = 2*sha256.Size + 8 + 4
	// maxPacks bounds how many packs a run reads (the newest) and keeps
	// (Close removes the oldest past it): file descriptors and the time
	// to read their indexes stay small.
	maxPacks = 64
	// maxRecords bounds one pack's index.
	maxRecords = 1 << 20
)

// location is where a value lives.
type location struct {
	pack   *pack
	sum    [sha256.Size]byte
	offset int64
	length int64
}

type pack struct {
	path string
	f    *os.File
	once sync.Once // discard
}

func (p *pack) read(loc location) ([]byte, error) {
	value := make([]byte, loc.length)
	if _, err := p.f.ReadAt(value, loc.offset); err != nil {
		return nil, err
	}
	if sha256.Sum256(value) != loc.sum {
		return nil, fmt.Errorf("%s: a value does not match its checksum", p.path)
	}
	return value, nil
}

// discard removes a pack found corrupt (its other entries are written
// again by the runs that miss them), counting it once in c.
func (p *pack) discard(c *Cache) {
	p.once.Do(func() {
		os.Remove(p.path)
		c.corruptPacks.Add(1)
	})
}

// writePack writes entries as one pack in dir and returns how many it
// holds.
func writePack(dir string, entries map[Key][]byte) (int, error) {
	keys := make([]Key, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b Key) int { return bytes.Compare(a[:], b[:]) })
	var head bytes.Buffer
	head.WriteString(packMagic)
	binary.Write(&head, binary.BigEndian, uint32(len(keys)))
	offset := int64(len(packMagic) + 4 + recordSize*len(keys))
	for _, k := range keys {
		v := entries[k]
		sum := sha256.Sum256(v)
		head.Write(k[:])
		head.Write(sum[:])
		binary.Write(&head, binary.BigEndian, uint64(offset))
		binary.Write(&head, binary.BigEndian, uint32(len(v)))
		offset += int64(len(v))
	}
	var name [12]byte
	rand.Read(name[:])
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return 0, err
	}
	_, werr := tmp.Write(head.Bytes())
	for _, k := range keys {
		if werr != nil {
			break
		}
		_, werr = tmp.Write(entries[k])
	}
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return 0, err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, packPrefix+hex.EncodeToString(name[:]))); err != nil {
		os.Remove(tmp.Name())
		return 0, err
	}
	return len(keys), nil
}

// loadIndex reads the indexes of the newest packs in the directory. A
// pack whose index does not hold together is counted corrupt and
// removed.
func (c *Cache) loadIndex() {
	c.index = map[Key]location{}
	type found struct {
		path string
		info os.FileInfo
	}
	var packs []found
	dirents, _ := os.ReadDir(c.dir)
	for _, d := range dirents {
		if !strings.HasPrefix(d.Name(), packPrefix) {
			continue
		}
		info, err := d.Info()
		if err != nil {
			continue
		}
		packs = append(packs, found{filepath.Join(c.dir, d.Name()), info})
	}
	slices.SortFunc(packs, func(a, b found) int {
		if n := b.info.ModTime().Compare(a.info.ModTime()); n != 0 {
			return n
		}
		return strings.Compare(a.path, b.path)
	})
	if len(packs) > maxPacks {
		packs = packs[:maxPacks]
	}
	paths := make([]string, len(packs))
	for i, fp := range packs {
		paths[i] = fp.path
	}
	c.openPacks(paths)
}

// openPacks reads the indexes of packs, newest first. A pack gone since
// the directory was listed (another run evicted it) is skipped; one that
// does not hold together is counted corrupt and removed.
func (c *Cache) openPacks(paths []string) {
	for _, path := range paths {
		p, locs, err := c.openPack(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			c.corruptPacks.Add(1)
			os.Remove(path)
			continue
		}
		c.packs = append(c.packs, p)
		for k, loc := range locs {
			if _, ok := c.index[k]; !ok {
				c.index[k] = loc
			}
		}
	}
}

// openPack opens a pack (a regular file, never through a link) and reads
// its index.
func (c *Cache) openPack(path string) (*pack, map[Key]location, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, nil, err
	}
	p, locs, err := c.readIndex(path, f)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return p, locs, nil
}

func (c *Cache) readIndex(path string, f *os.File) (*pack, map[Key]location, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: not a regular file", path)
	}
	size := st.Size()
	head := make([]byte, len(packMagic)+4)
	if _, err := io.ReadFull(f, head); err != nil || string(head[:len(packMagic)]) != packMagic {
		return nil, nil, fmt.Errorf("%s: not a pack", path)
	}
	count := int64(binary.BigEndian.Uint32(head[len(packMagic):]))
	if count > maxRecords || int64(len(head))+count*recordSize > size {
		return nil, nil, fmt.Errorf("%s: index larger than the file", path)
	}
	records := make([]byte, count*recordSize)
	if _, err := io.ReadFull(f, records); err != nil {
		return nil, nil, err
	}
	p := &pack{path: path, f: f}
	locs := make(map[Key]location, count)
	valuesStart := int64(len(head)) + count*recordSize
	for r := records; len(r) > 0; r = r[recordSize:] {
		var k Key
		copy(k[:], r)
		loc := location{pack: p}
		copy(loc.sum[:], r[sha256.Size:])
		loc.offset = int64(binary.BigEndian.Uint64(r[2*sha256.Size:]))
		loc.length = int64(binary.BigEndian.Uint32(r[2*sha256.Size+8:]))
		if loc.offset < valuesStart || loc.length > c.maxItem || loc.offset > size-loc.length {
			return nil, nil, fmt.Errorf("%s: a record points outside the file", path)
		}
		locs[k] = loc
	}
	return p, locs, nil
}

// Count is how many results the packs in dir hold that verify (duplicates
// across packs counted once), for tests and diagnostics.
func Count(dir string, opts Options) (int, error) {
	opts.Build = "count" // keys are read, never computed
	c, err := Open(dir, opts)
	if err != nil {
		return 0, err
	}
	c.loadOnce.Do(c.loadIndex)
	n := len(c.index)
	c.Close()
	return n, nil
}
