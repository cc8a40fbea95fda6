package shard

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MaxCount bounds N: more shards than this is a typo, not a matrix.
const MaxCount = 1024

// Spec is one shard of N: Index in 1..Count. The zero Spec is "not
// sharded" and holds every app.
type Spec struct {
	Index, Count int
}

// Parse reads "I/N" (1 <= I <= N <= MaxCount), as --shard takes it.
func Parse(s string) (Spec, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Spec{}, fmt.Errorf("shard %q: want I/N, such as 1/4 (the first of four shards)", s)
	}
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	switch {
	case err1 != nil || err2 != nil:
		return Spec{}, fmt.Errorf("shard %q: I and N must be whole numbers, such as 1/4", s)
	case count < 1 || count > MaxCount:
		return Spec{}, fmt.Errorf("shard %q: N must be between 1 and %d", s, MaxCount)
	case index < 1 || index > count:
		return Spec{}, fmt.Errorf("shard %q: I must be between 1 and N (%d); shards count from 1", s, count)
	}
	return Spec{Index: index, Count: count}, nil
}

// String is "I/N" ("" for the zero Spec).
func (s Spec) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Sharded reports whether s selects a part of the apps.
func (s Spec) Sharded() bool { return s.Count > 1 }

// Validate checks a Spec built by hand.
func (s Spec) Validate() error {
	if s.Count == 0 && s.Index == 0 {
		return nil
	}
	if s.Count < 1 || s.Count > MaxCount || s.Index < 1 || s.Index > s.Count {
		return errors.New("shard: want 1 <= I <= N <= " + strconv.Itoa(MaxCount))
	}
	return nil
}

// ID is what identifies an app across revisions and runs.
type ID struct {
	Kind, Namespace, Name string
}

// String is "Kind/namespace/name".
func (id ID) String() string { return id.Kind + "/" + id.Namespace + "/" + id.Name }

// Of is the shard (1..count) the app with id falls in: the first 64 bits
// of the SHA-256 of its identity (the fields NUL-separated, so no two
// identities share a key) modulo count. SHA-256 is fixed by its
// definition, so the assignment is the same on every machine, Go version
// and run, and its low bits are as even as its high ones (FNV-1a's are
// not: names that differ in one digit fell into two of four shards).
func Of(id ID, count int) int {
	if count <= 1 {
		return 1
	}
	h := sha256.New()
	h.Write([]byte(id.Kind))
	h.Write([]byte{0})
	h.Write([]byte(id.Namespace))
	h.Write([]byte{0})
	h.Write([]byte(id.Name))
	var sum [sha256.Size]byte
	return int(binary.BigEndian.Uint64(h.Sum(sum[:0]))%uint64(count)) + 1
}

// Holds reports whether the shard holds the app with id (every app when s
// is the zero Spec).
func (s Spec) Holds(id ID) bool {
	if s.Count <= 1 {
		return true
	}
	return Of(id, s.Count) == s.Index
}
