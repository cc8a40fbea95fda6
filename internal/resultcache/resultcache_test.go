package resultcache

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// TestCorruptEntries: an entry cut short, altered, holding another key's
// result, replaced by a link or too large is a miss, counted and removed.
func TestCorruptEntries(t *testing.T) {
	dir := t.TempDir()
	c := open(t, dir, Options{MaxEntryBytes: 64})
	k, other := KeyOf([]byte("k")), KeyOf([]byte("other"))
	path := c.path(c.entryKey(k))
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("not routeguard's"), 0o600)
	for _, tc := range []struct {
		name  string
		spoil func()
	}{
		{"cut short", func() { data, _ := os.ReadFile(path); os.WriteFile(path, data[:len(data)-3], 0o600) }},
		{"value altered", func() { data, _ := os.ReadFile(path); data[len(data)-2] ^= 1; os.WriteFile(path, data, 0o600) }},
		{"another key's entry", func() {
			os.WriteFile(path, encode(c.entryKey(other), []byte(`{"v":2}`)), 0o600)
		}},
		{"a link", func() { os.Remove(path); os.Symlink(secret, path) }},
		{"too large", func() { os.WriteFile(path, encode(c.entryKey(k), bytes.Repeat([]byte("x"), 10<<10)), 0o600) }},
		{"garbage", func() { os.WriteFile(path, []byte("garbage"), 0o600) }},
	} {
		c.Put(k, []byte(`{"v":1}`))
		tc.spoil()
		before := c.corrupt.Load()
		if v, ok := c.Get(k); ok {
			t.Errorf("%s: read %q", tc.name, v)
		}
		if c.corrupt.Load() != before+1 {
			t.Errorf("%s: not counted as corrupt", tc.name)
		}
		if _, err := os.Lstat(path); !os.IsNotExist(err) {
			t.Errorf("%s: entry left in place", tc.name)
		}
	}
	if data, _ := os.ReadFile(secret); string(data) != "not routeguard's" {
		t.Error("the link's target was touched")
	}
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

// TestEviction: past MaxBytes the oldest entries go, down to three
// quarters of it; entries over the entry bound are not kept.
func TestEviction(t *testing.T) {
	dir := t.TempDir()
	c := open(t, dir, Options{MaxBytes: 10 << 10, MaxEntryBytes: 1 << 10})
	value := bytes.Repeat([]byte("v"), 900)
	var keys []Key
	for i := range 20 {
		k := KeyOf([]byte{byte(i)})
		keys = append(keys, k)
		c.Put(k, value)
		old := time.Now().Add(time.Duration(i-100) * time.Minute)
		os.Chtimes(c.path(c.entryKey(k)), old, old)
	}
	c.Put(KeyOf([]byte("big")), bytes.Repeat([]byte("v"), 2<<10))
	s := c.Close()
	if s.Written != 20 || s.Evicted == 0 {
		t.Fatalf("stats %+v: want 20 written and some evicted", s)
	}
	var total int64
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if info.Mode().IsRegular() {
			total += info.Size()
		}
		return nil
	})
	if total > 10<<10/4*3 {
		t.Errorf("%d bytes left, want at most %d", total, 10<<10/4*3)
	}
	c2 := open(t, dir, Options{MaxBytes: 10 << 10})
	if _, ok := c2.Get(keys[0]); ok {
		t.Error("the oldest entry survived eviction")
	}
	if _, ok := c2.Get(keys[19]); !ok {
		t.Error("the newest entry was evicted")
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
