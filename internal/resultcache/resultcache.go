package resultcache

import (
	"bytes"
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
	"sync/atomic"
	"time"
)

// Defaults of Options.
const (
	DefaultMaxBytes   = 256 << 20
	DefaultEntryBytes = 1 << 20
)

// magic opens every entry: its format, then the hex key.
const magic = "routeguard-result-cache v1 "

// Options of Open.
type Options struct {
	// Build identifies the routeguard build writing and reading entries
	// (BuildID); it is part of every key.
	Build string
	// MaxBytes bounds the directory (DefaultMaxBytes when 0).
	MaxBytes int64
	// MaxEntryBytes bounds one entry (DefaultEntryBytes when 0); a
	// larger result is not kept.
	MaxEntryBytes int64
}

// Cache is a directory of results. It is safe for concurrent use, also by
// several processes sharing the directory.
type Cache struct {
	dir     string
	build   string
	max     int64
	maxItem int64

	hits, misses, corrupt, written atomic.Int64
	shards                         sync.Map // shard directories made or checked
	writeMu                        sync.Mutex
	writeErr                       error // the first failed write (said once)
}

// Open opens (creating it 0700) the cache directory dir. It refuses a
// directory that is a symbolic link, is not a directory, or belongs to
// another user.
func Open(dir string, opts Options) (*Cache, error) {
	if opts.Build == "" {
		return nil, errors.New("no build identity: results of another build could be read")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cache directory %s: %w", dir, err)
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("cache directory %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("cache directory %s is not a directory (a symbolic link?)", dir)
	}
	if !ownedByMe(st) {
		return nil, fmt.Errorf("cache directory %s belongs to another user", dir)
	}
	if st.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return nil, fmt.Errorf("cache directory %s: %w", dir, err)
		}
	}
	c := &Cache{dir: dir, build: opts.Build, max: opts.MaxBytes, maxItem: opts.MaxEntryBytes}
	if c.max <= 0 {
		c.max = DefaultMaxBytes
	}
	if c.maxItem <= 0 {
		c.maxItem = DefaultEntryBytes
	}
	return c, nil
}

// Key is the key of a result: SHA-256 over the parts, each
// length-prefixed, so that no two lists of parts share a key.
type Key [sha256.Size]byte

// KeyOf computes the key of parts.
func KeyOf(parts ...[]byte) Key {
	h := sha256.New()
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write(p)
	}
	var k Key
	h.Sum(k[:0])
	return k
}

// entryKey is the key of an entry on disk: the caller's key within this
// build.
func (c *Cache) entryKey(k Key) string {
	e := KeyOf([]byte("routeguard result cache"), []byte(c.build), k[:])
	return hex.EncodeToString(e[:])
}

func (c *Cache) path(hexKey string) string {
	return filepath.Join(c.dir, hexKey[:2], hexKey)
}

// Get returns the result kept for k. An entry that does not verify (cut
// short, altered, another key's, too large) is a miss, counted in Stats
// and removed.
func (c *Cache) Get(k Key) ([]byte, bool) {
	hexKey := c.entryKey(k)
	path := c.path(hexKey)
	data, err := readEntry(path, c.maxItem+int64(len(magic)+2*sha256.Size+2*64))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.corrupt.Add(1)
			os.Remove(path)
		}
		c.misses.Add(1)
		return nil, false
	}
	value, ok := verify(data, hexKey)
	if !ok {
		c.corrupt.Add(1)
		c.misses.Add(1)
		os.Remove(path)
		return nil, false
	}
	c.hits.Add(1)
	return value, true
}

// readEntry reads a regular file (never through a link) of at most limit
// bytes.
func readEntry(path string, limit int64) ([]byte, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > limit {
		return nil, fmt.Errorf("%s: not a regular file of at most %d bytes", path, limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return data, nil
}

// An entry is: magic, the hex entry key, "\n", the hex SHA-256 of the
// value, "\n", the value.
func encode(hexKey string, value []byte) []byte {
	sum := sha256.Sum256(value)
	var b bytes.Buffer
	b.Grow(len(magic) + len(hexKey) + 2 + 2*len(sum) + len(value))
	b.WriteString(magic)
	b.WriteString(hexKey)
	b.WriteByte('\n')
	b.WriteString(hex.EncodeToString(sum[:]))
	b.WriteByte('\n')
	b.Write(value)
	return b.Bytes()
}

func verify(data []byte, hexKey string) ([]byte, bool) {
	head := magic + hexKey + "\n"
	if !bytes.HasPrefix(data, []byte(head)) {
		return nil, false
	}
	rest := data[len(head):]
	sumHex, value, ok := bytes.Cut(rest, []byte("\n"))
	if !ok || len(sumHex) != 2*sha256.Size {
		return nil, false
	}
	sum := sha256.Sum256(value)
	if hex.EncodeToString(sum[:]) != string(sumHex) {
		return nil, false
	}
	return value, true
}

// Put keeps value as the result for k: written to a temporary file (0600)
// and renamed into place, so that a reader never sees half an entry. A
// value larger than the entry bound is not kept; a failed write is said
// once by Stats, never an error of the run.
func (c *Cache) Put(k Key, value []byte) {
	if int64(len(value)) > c.maxItem {
		return
	}
	hexKey := c.entryKey(k)
	path := c.path(hexKey)
	if err := c.write(path, encode(hexKey, value)); err != nil {
		c.writeMu.Lock()
		if c.writeErr == nil {
			c.writeErr = err
		}
		c.writeMu.Unlock()
		return
	}
	c.written.Add(1)
}

func (c *Cache) write(path string, data []byte) error {
	shard := filepath.Dir(path)
	// Each shard is made (or checked: a directory, not a link) once per
	// run: creating a file costs enough system time already.
	if _, ok := c.shards.Load(shard); !ok {
		if err := os.Mkdir(shard, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if st, err := os.Lstat(shard); err != nil || !st.IsDir() {
			return fmt.Errorf("%s is not a directory", shard)
		}
		c.shards.Store(shard, true)
	}
	tmp, err := os.CreateTemp(shard, ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// Stats are what a run did with the cache.
type Stats struct {
	Hits, Misses, Corrupt, Written, Evicted int64
	WriteErr                                error
}

// Close bounds the directory (when this run wrote to it: the oldest
// entries go until it holds at most three quarters of MaxBytes) and
// returns the run's figures.
func (c *Cache) Close() Stats {
	s := Stats{Hits: c.hits.Load(), Misses: c.misses.Load(), Corrupt: c.corrupt.Load(), Written: c.written.Load()}
	c.writeMu.Lock()
	s.WriteErr = c.writeErr
	c.writeMu.Unlock()
	if s.Written > 0 {
		s.Evicted = c.evict()
	}
	return s
}

type entry struct {
	path string
	size int64
	mod  time.Time
}

func (c *Cache) evict() int64 {
	var entries []entry
	var total int64
	shards, _ := os.ReadDir(c.dir)
	for _, sh := range shards {
		if !sh.IsDir() || len(sh.Name()) != 2 {
			continue
		}
		files, _ := os.ReadDir(filepath.Join(c.dir, sh.Name()))
		for _, f := range files {
			info, err := f.Info()
			if err != nil || !info.Mode().IsRegular() {
				continue
			}
			p := filepath.Join(c.dir, sh.Name(), f.Name())
			if strings.HasPrefix(f.Name(), ".tmp-") && time.Since(info.ModTime()) < time.Hour {
				continue // another process's write in progress
			}
			entries = append(entries, entry{p, info.Size(), info.ModTime()})
			total += info.Size()
		}
	}
	if total <= c.max {
		return 0
	}
	slices.SortFunc(entries, func(a, b entry) int { return a.mod.Compare(b.mod) })
	var evicted int64
	for _, e := range entries {
		if total <= c.max/4*3 {
			break
		}
		if os.Remove(e.path) == nil {
			total -= e.size
			evicted++
		}
	}
	return evicted
}
