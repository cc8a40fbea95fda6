package resultcache

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func open(t *testing.T, dir string, opts Options) *Cache {
	t.Helper()
	if opts.Build == "" {
		opts.Build = "test-build"
	}
	c, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestPutGet(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	c := open(t, dir, Options{})
	k := KeyOf([]byte("a"), []byte("b"))
	if _, ok := c.Get(k); ok {
		t.Fatal("hit in an empty cache")
	}
	c.Put(k, []byte(`{"v":1}`))
	got, ok := c.Get(k)
	if !ok || string(got) != `{"v":1}` {
		t.Fatalf("Get = %q, %t", got, ok)
	}
	// Another build never reads this build's entries.
	if _, ok := open(t, dir, Options{Build: "other-build"}).Get(k); ok {
		t.Error("another build read the entry")
	}
	s := c.Close()
	if s.Hits != 1 || s.Misses != 1 || s.Written != 1 || s.Corrupt != 0 {
		t.Errorf("stats %+v", s)
	}
	st, _ := os.Stat(dir)
	if st.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, want 0700", st.Mode().Perm())
	}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if info.Mode().IsRegular() && info.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", p, info.Mode().Perm())
		}
		if info.IsDir() && info.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want 0700", p, info.Mode().Perm())
		}
		return nil
	})
}

// TestKeysDoNotCollide: parts are length-prefixed.
func TestKeysDoNotCollide(t *testing.T) {
	if KeyOf([]byte("ab"), []byte("c")) == KeyOf([]byte("a"), []byte("bc")) {
		t.Error("moving a byte between parts kept the key")
	}
	if KeyOf([]byte("a")) == KeyOf([]byte("a"), nil) {
		t.Error("an empty part kept the key")
	}
}

// onlyPack returns the one pack in dir.
func onlyPack(t *testing.T, dir string) string {
	t.Helper()
	packs, _ := filepath.Glob(filepath.Join(dir, packPrefix+"*"))
	if len(packs) != 1 {
		t.Fatalf("%d packs in %s, want 1", len(packs), dir)
	}
	return packs[0]
}

// TestPackedAcrossRuns: a run's results are one file, read by the next
// run.
func TestPackedAcrossRuns(t *testing.T) {
	dir := t.TempDir()
	c := open(t, dir, Options{})
	for i := range 100 {
		c.Put(KeyOf([]byte{byte(i)}), []byte{byte(i), 'v'})
	}
	if s := c.Close(); s.Written != 100 {
		t.Fatalf("stats %+v", s)
	}
	onlyPack(t, dir)
	c2 := open(t, dir, Options{})
	for i := range 100 {
		v, ok := c2.Get(KeyOf([]byte{byte(i)}))
		if !ok || !bytes.Equal(v, []byte{byte(i), 'v'}) {
			t.Fatalf("entry %d: %q, %t", i, v, ok)
		}
	}
	if _, ok := c2.Get(KeyOf([]byte("absent"))); ok {
		t.Error("hit for a key never put")
	}
	if s := c2.Close(); s.Hits != 100 || s.Misses != 1 || s.Written != 0 {
		t.Errorf("stats %+v", s)
	}
}

// TestCorruptPacks: a pack cut short, altered, with records pointing
// elsewhere, replaced by a link or holding too large a value is a miss,
// counted, and the pack removed; it is never a result.
func TestCorruptPacks(t *testing.T) {
	k := KeyOf([]byte("k"))
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("not routeguard's"), 0o600)
	valueAt := func(data []byte) int { return len(data) - len(`{"v":1}`) }
	for _, tc := range []struct {
		name    string
		entries int64 // values refused (the rest: the index did not hold)
		spoil   func(path string)
	}{
		{"cut short", 0, func(p string) { data, _ := os.ReadFile(p); os.WriteFile(p, data[:len(data)-3], 0o600) }},
		{"index cut short", 0, func(p string) { data, _ := os.ReadFile(p); os.WriteFile(p, data[:len(packMagic)+10], 0o600) }},
		{"value altered", 1, func(p string) { data, _ := os.ReadFile(p); data[valueAt(data)+2] ^= 1; os.WriteFile(p, data, 0o600) }},
		{"offset altered", 0, func(p string) {
			data, _ := os.ReadFile(p)
			data[len(packMagic)+4+2*32+7] ^= 0x40
			os.WriteFile(p, data, 0o600)
		}},
		{"count altered", 0, func(p string) { data, _ := os.ReadFile(p); data[len(packMagic)] = 0xff; os.WriteFile(p, data, 0o600) }},
		{"a link", 0, func(p string) { os.Remove(p); os.Symlink(secret, p) }},
		{"garbage", 0, func(p string) { os.WriteFile(p, []byte("garbage"), 0o600) }},
	} {
		dir := t.TempDir()
		c := open(t, dir, Options{MaxEntryBytes: 64})
		c.Put(k, []byte(`{"v":1}`))
		c.Close()
		path := onlyPack(t, dir)
		tc.spoil(path)
		c2 := open(t, dir, Options{MaxEntryBytes: 64})
		if v, ok := c2.Get(k); ok {
			t.Errorf("%s: read %q", tc.name, v)
		}
		if s := c2.Close(); s.Corrupt != tc.entries || s.CorruptPacks != 1 {
			t.Errorf("%s: %d entries and %d packs counted as corrupt, want %d and 1", tc.name, s.Corrupt, s.CorruptPacks, tc.entries)
		}
		if _, err := os.Lstat(path); !os.IsNotExist(err) {
			t.Errorf("%s: pack left in place", tc.name)
		}
	}
	// A value over the entry bound of the reading run is refused too.
	dir := t.TempDir()
	c := open(t, dir, Options{})
	c.Put(k, bytes.Repeat([]byte("x"), 10<<10))
	c.Close()
	c2 := open(t, dir, Options{MaxEntryBytes: 64})
	if _, ok := c2.Get(k); ok {
		t.Error("read a value over the entry bound")
	}
	if data, _ := os.ReadFile(secret); string(data) != "not routeguard's" {
		t.Error("the link's target was touched")
	}
}

// TestCorruptCounts: entries that do not verify are counted one by one,
// the packs removed for them once each, apart from packs whose index does
// not hold (the command's notice says which were removed).
func TestCorruptCounts(t *testing.T) {
	dir := t.TempDir()
	keys := []Key{KeyOf([]byte("a")), KeyOf([]byte("b")), KeyOf([]byte("c"))}
	c := open(t, dir, Options{})
	for _, k := range keys {
		c.Put(k, []byte(`{"v":1}`))
	}
	c.Close()
	path := onlyPack(t, dir)
	data, _ := os.ReadFile(path)
	// Alter the last byte of every value ("}" of each {"v":1}, the values
	// being the pack's last bytes).
	for i := len(data) - len(keys)*len(`{"v":1}`); i < len(data); i++ {
		if data[i] == '}' {
			data[i] ^= 1
		}
	}
	os.WriteFile(path, data, 0o600)
	c2 := open(t, dir, Options{})
	for _, k := range keys {
		if v, ok := c2.Get(k); ok {
			t.Errorf("read an altered value %q", v)
		}
	}
	if s := c2.Close(); s.Corrupt != 3 || s.CorruptPacks != 1 {
		t.Errorf("three altered entries of one pack: %d entries, %d packs counted, want 3 and 1", s.Corrupt, s.CorruptPacks)
	}
	// Two packs that are not packs: two removed, no entry counted.
	os.WriteFile(filepath.Join(dir, packPrefix+"x"), []byte("garbage"), 0o600)
	os.WriteFile(filepath.Join(dir, packPrefix+"y"), []byte("garbage"), 0o600)
	c3 := open(t, dir, Options{})
	c3.Get(keys[0])
	if s := c3.Close(); s.Corrupt != 0 || s.CorruptPacks != 2 {
		t.Errorf("two garbage packs: %d entries, %d packs counted, want 0 and 2", s.Corrupt, s.CorruptPacks)
	}
}

// TestConcurrentRuns: runs writing and reading the same directory at once
// each find every result, their own or the others'.
func TestConcurrentRuns(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := open(t, dir, Options{})
			for i := range 200 {
				k := KeyOf([]byte{byte(w)}, []byte{byte(i)})
				if v, ok := c.Get(k); ok {
					t.Errorf("writer %d: hit before put: %q", w, v)
				}
				c.Put(k, []byte{byte(w), byte(i)})
			}
			c.Close()
		}()
	}
	wg.Wait()
	c := open(t, dir, Options{})
	for w := range 4 {
		for i := range 200 {
			if v, ok := c.Get(KeyOf([]byte{byte(w)}, []byte{byte(i)})); !ok || !bytes.Equal(v, []byte{byte(w), byte(i)}) {
				t.Fatalf("writer %d entry %d: %q, %t", w, i, v, ok)
			}
		}
	}
	if s := c.Close(); s.Corrupt != 0 {
		t.Errorf("stats %+v", s)
	}
}

// TestPackEvictedWhileListed: a pack another run removes between this
// run's listing of the directory and its opening of the pack (concurrent
// generations in the Argo CD sidecar evict each other's packs) is a miss,
// never a corrupt entry (which would print a note), and the other packs
// are still read.
func TestPackEvictedWhileListed(t *testing.T) {
	dir := t.TempDir()
	for w := range 2 {
		c := open(t, dir, Options{})
		c.Put(KeyOf([]byte{byte(w)}), []byte{byte(w)})
		c.Close()
	}
	files, _ := filepath.Glob(filepath.Join(dir, packPrefix+"*"))
	if len(files) != 2 {
		t.Fatalf("packs %v", files)
	}
	gone := open(t, dir, Options{})
	kept := open(t, dir, Options{})
	gone.loadOnce.Do(func() {})
	gone.index = map[Key]location{}
	gone.openPacks(files)
	// Which pack holds which key: read each with a run of its own.
	var keep, evict string
	for _, f := range files {
		c := open(t, dir, Options{})
		c.loadOnce.Do(func() {})
		c.index = map[Key]location{}
		c.openPacks([]string{f})
		if _, ok := c.Get(KeyOf([]byte{0})); ok {
			evict = f
		} else {
			keep = f
		}
		c.Close()
	}
	if err := os.Remove(evict); err != nil {
		t.Fatal(err)
	}
	kept.loadOnce.Do(func() {})
	kept.index = map[Key]location{}
	kept.openPacks([]string{evict, keep})
	if _, ok := kept.Get(KeyOf([]byte{0})); ok {
		t.Error("a result of the removed pack was read")
	}
	if v, ok := kept.Get(KeyOf([]byte{1})); !ok || !bytes.Equal(v, []byte{1}) {
		t.Errorf("the pack still there was not read: %q, %t", v, ok)
	}
	if s := kept.Close(); s.Corrupt != 0 {
		t.Errorf("a pack evicted by another run counted corrupt: %+v", s)
	}
	// A run that had the pack open before it went still reads it.
	if v, ok := gone.Get(KeyOf([]byte{0})); !ok || !bytes.Equal(v, []byte{0}) {
		t.Errorf("an open pack removed by another run: %q, %t", v, ok)
	}
	gone.Close()
}

func TestOpenRefuses(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(root, "target")
	os.Mkdir(target, 0o700)
	link := filepath.Join(root, "link")
	os.Symlink(target, link)
	if _, err := Open(link, Options{Build: "b"}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Open of a link: %v", err)
	}
	file := filepath.Join(root, "file")
	os.WriteFile(file, nil, 0o600)
	if _, err := Open(file, Options{Build: "b"}); err == nil {
		t.Error("Open of a file succeeded")
	}
	if _, err := Open(target, Options{}); err == nil {
		t.Error("Open without a build identity succeeded")
	}
	loose := filepath.Join(root, "loose")
	os.Mkdir(loose, 0o777)
	os.Chmod(loose, 0o777)
	open(t, loose, Options{})
	if st, _ := os.Stat(loose); st.Mode().Perm() != 0o700 {
		t.Errorf("a group- or world-accessible directory kept mode %v", st.Mode().Perm())
	}
}

// TestEviction: past MaxBytes the oldest packs go, down to three
// quarters of it, and past maxPacks the oldest packs go; entries over the
// entry bound are not kept; files of builds before packs count and go.
func TestEviction(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "ab"), 0o700)
	legacy := filepath.Join(dir, "ab", "ab01")
	os.WriteFile(legacy, bytes.Repeat([]byte("l"), 900), 0o600)
	old := time.Now().Add(-200 * time.Minute)
	os.Chtimes(legacy, old, old)
	value := bytes.Repeat([]byte("v"), 900)
	var keys []Key
	for i := range 20 {
		c := open(t, dir, Options{MaxBytes: 10 << 10, MaxEntryBytes: 1 << 10})
		k := KeyOf([]byte{byte(i)})
		keys = append(keys, k)
		c.Put(k, value)
		c.Put(KeyOf([]byte("big")), bytes.Repeat([]byte("v"), 2<<10))
		c.Close()
		newest := ""
		packs, _ := filepath.Glob(filepath.Join(dir, packPrefix+"*"))
		for _, p := range packs {
			if st, _ := os.Stat(p); time.Since(st.ModTime()) < time.Minute {
				newest = p
			}
		}
		old := time.Now().Add(time.Duration(i-100) * time.Minute)
		os.Chtimes(newest, old, old)
	}
	var total int64
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if info.Mode().IsRegular() {
			total += info.Size()
		}
		return nil
	})
	if total > 10<<10 {
		t.Errorf("%d bytes left, want at most %d", total, 10<<10)
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Error("the oldest file (of an earlier build) survived eviction")
	}
	c2 := open(t, dir, Options{MaxBytes: 10 << 10})
	if _, ok := c2.Get(keys[0]); ok {
		t.Error("the oldest entry survived eviction")
	}
	if _, ok := c2.Get(keys[19]); !ok {
		t.Error("the newest entry was evicted")
	}
	if _, ok := c2.Get(KeyOf([]byte("big"))); ok {
		t.Error("an entry over the entry bound was kept")
	}

	many := t.TempDir()
	for i := range maxPacks + 5 {
		c := open(t, many, Options{})
		c.Put(KeyOf([]byte{byte(i)}), []byte("v"))
		c.Close()
	}
	if packs, _ := filepath.Glob(filepath.Join(many, packPrefix+"*")); len(packs) != maxPacks {
		t.Errorf("%d packs kept, want %d", len(packs), maxPacks)
	}
}

// TestBuildID: the test binary's build ID is the one the go command reads.
func TestBuildID(t *testing.T) {
	id, err := BuildID()
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	out, err := exec.Command("go", "tool", "buildid", exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(out)); id != want {
		t.Errorf("BuildID = %q, go tool buildid says %q", id, want)
	}
	if _, err := readBuildID(strings.NewReader("no id here")); err == nil {
		t.Error("readBuildID found an ID in a file without one")
	}
}
