package resultcache

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
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

// flushBytes is how much a run keeps in memory before it writes a pack.
const flushBytes = 32 << 20

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

	hits, misses, written atomic.Int64
	// corrupt counts values that did not match their checksum;
	// corruptPacks the packs removed for it or for an index that did not
	// hold together.
	corrupt, corruptPacks atomic.Int64

	loadOnce sync.Once
	index    map[Key]location // the packs of earlier runs, read once
	packs    []*pack

	mu           sync.Mutex
	pending      map[Key][]byte // written by this run, not yet in a pack
	pendingBytes int64
	flushed      map[Key][]byte // written by this run, in a pack
	writeErr     error          // the first failed write (said once)
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
func (c *Cache) entryKey(k Key) Key {
	return KeyOf([]byte("routeguard result cache"), []byte(c.build), k[:])
}

// Get returns the result kept for k: written by this run, or found in a
// pack of an earlier one. An entry that does not verify (its pack cut
// short or altered) is a miss, counted in Stats, and its pack removed.
func (c *Cache) Get(k Key) ([]byte, bool) {
	ek := c.entryKey(k)
	c.mu.Lock()
	v, ok := c.pending[ek]
	if !ok {
		v, ok = c.flushed[ek]
	}
	c.mu.Unlock()
	if ok {
		c.hits.Add(1)
		return v, true
	}
	c.loadOnce.Do(c.loadIndex)
	loc, ok := c.index[ek]
	if !ok {
		c.misses.Add(1)
		return nil, false
	}
	value, err := loc.pack.read(loc)
	if err != nil {
		c.corrupt.Add(1)
		c.misses.Add(1)
		loc.pack.discard(c)
		return nil, false
	}
	c.hits.Add(1)
	return value, true
}

// Put keeps value as the result for k. Results are collected and written
// as one pack when the run closes the cache (or when they pass
// flushBytes): one file per run instead of one per object, which made a
// cold run pay for ten thousand file creations. A value larger than the
// entry bound is not kept; a failed write is said once by Stats, never an
// error of the run.
func (c *Cache) Put(k Key, value []byte) {
	if int64(len(value)) > c.maxItem {
		return
	}
	ek := c.entryKey(k)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[ek]; ok {
		return
	}
	if c.pending == nil {
		c.pending = map[Key][]byte{}
	}
	c.pending[ek] = value
	c.pendingBytes += int64(len(value))
	if c.pendingBytes >= flushBytes {
		c.flushLocked()
	}
}

// flushLocked writes the pending results as one pack (c.mu held). They
// stay readable from memory for the rest of the run.
func (c *Cache) flushLocked() {
	if len(c.pending) == 0 {
		return
	}
	n, err := writePack(c.dir, c.pending)
	if err != nil {
		if c.writeErr == nil {
			c.writeErr = err
		}
	} else {
		c.written.Add(int64(n))
	}
	if c.flushed == nil {
		c.flushed = map[Key][]byte{}
	}
	for k, v := range c.pending {
		c.flushed[k] = v
	}
	c.pending = nil
	c.pendingBytes = 0
}

// Stats are what a run did with the cache.
type Stats struct {
	Hits, Misses, Written, Evicted int64
	// Corrupt counts the entries read whose value did not match its
	// checksum (each a miss); CorruptPacks the packs removed as corrupt,
	// for such an entry (with every other entry they held) or for an
	// index that did not hold together (cut short, altered, a link, not
	// a pack).
	Corrupt, CorruptPacks int64
	WriteErr              error
}

// Close bounds the directory (when this run wrote to it: the oldest
// entries go until it holds at most three quarters of MaxBytes) and
// returns the run's figures.
func (c *Cache) Close() Stats {
	c.mu.Lock()
	c.flushLocked()
	c.flushed = nil
	c.mu.Unlock()
	c.loadOnce.Do(func() {})
	for _, p := range c.packs {
		p.f.Close()
	}
	s := Stats{Hits: c.hits.Load(), Misses: c.misses.Load(), Corrupt: c.corrupt.Load(), CorruptPacks: c.corruptPacks.Load(), Written: c.written.Load()}
	c.mu.Lock()
	s.WriteErr = c.writeErr
	c.mu.Unlock()
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

// evict removes the oldest packs while the directory holds more than
// MaxBytes (down to three quarters of it) or more than maxPacks packs.
// Entries of routeguard builds before packs (one file each, in
// two-letter directories) count and go the same way; another process's
// temporary file goes only when it is an hour old.
func (c *Cache) evict() int64 {
	var entries []entry
	var total int64
	packs := 0
	add := func(p string, info os.FileInfo) {
		if !info.Mode().IsRegular() {
			return
		}
		if strings.HasPrefix(info.Name(), ".tmp-") && time.Since(info.ModTime()) < time.Hour {
			return // another process's write in progress
		}
		if strings.HasPrefix(info.Name(), packPrefix) {
			packs++
		}
		entries = append(entries, entry{p, info.Size(), info.ModTime()})
		total += info.Size()
	}
	top, _ := os.ReadDir(c.dir)
	for _, d := range top {
		info, err := d.Info()
		if err != nil {
			continue
		}
		if !d.IsDir() {
			add(filepath.Join(c.dir, d.Name()), info)
			continue
		}
		if len(d.Name()) != 2 {
			continue
		}
		files, _ := os.ReadDir(filepath.Join(c.dir, d.Name()))
		for _, f := range files {
			if info, err := f.Info(); err == nil {
				add(filepath.Join(c.dir, d.Name(), f.Name()), info)
			}
		}
	}
	if total <= c.max && packs <= maxPacks {
		return 0
	}
	slices.SortFunc(entries, func(a, b entry) int {
		if n := a.mod.Compare(b.mod); n != 0 {
			return n
		}
		return strings.Compare(a.path, b.path)
	})
	var evicted int64
	for _, e := range entries {
		isPack := strings.HasPrefix(filepath.Base(e.path), packPrefix)
		overBytes, overPacks := total > c.max/4*3, packs > maxPacks
		if !overBytes && !overPacks {
			break
		}
		if !overBytes && !isPack {
			continue
		}
		if os.Remove(e.path) == nil {
			total -= e.size
			evicted++
			if isPack {
				packs--
			}
		}
	}
	return evicted
}
