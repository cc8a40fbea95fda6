package manifest

import (
	"strconv"
	"strings"
)

// FieldIndex maps field paths of one object to the lines they are written
// on, so that a finding about spec.rules[3].matches[0].path can point at
// that line rather than at the object's first one. It is built while the
// YAML is decoded and kept compact: 8 bytes per YAML node, a 40-bit hash
// of the node's path and its line in 24 bits, no strings. A nil index
// knows no lines (objects rendered from Helm templates, or built in
// memory).
type FieldIndex struct {
	base    uint64 // hash of the object's root (a List item's path in its document)
	entries []uint64
}

const (
	lineBits = 24
	maxLine  = 1<<lineBits - 1
)

// fieldLine packs a path hash and a line into one entry.
func fieldLine(hash uint64, line int) uint64 { return hash<<lineBits | uint64(line) }

// FieldSource returns where the field at path is written: path is a field
// path as the API server prints it ("spec.rules[0].backendRefs[1].port",
// map keys in brackets: "metadata.labels[app.kubernetes.io/name]"). When
// the field itself is not in the source (a required field that is
// missing, a value added by defaulting), the line of its nearest written
// ancestor is used; without an index, the object's own source.
func (o *Object) FieldSource(path string) Source {
	src := o.Source
	if line := o.Fields.Line(path); line > 0 {
		src.Line = line
	}
	return src
}

// Line returns the line of path or of its nearest ancestor in the index,
// 0 when the index knows neither.
func (x *FieldIndex) Line(path string) int {
	if x == nil || path == "" {
		return 0
	}
	h, line := x.base, 0
	for _, seg := range splitFieldPath(path) {
		next, ok := uint64(0), false
		if n, err := strconv.Atoi(seg.name); err == nil && seg.bracket && n >= 0 {
			next = indexHash(h, n)
			_, ok = x.find(next)
		}
		if !ok {
			next = keyHash(h, seg.name)
			if _, ok = x.find(next); !ok {
				break
			}
		}
		h = next
		line, _ = x.find(h)
	}
	return line
}

func (x *FieldIndex) find(h uint64) (int, bool) {
	key := h << lineBits
	for _, e := range x.entries {
		if e&^maxLine == key {
			return int(e & maxLine), true
		}
	}
	return 0, false
}

// sub returns the index of a List item: the same entries, rooted at
// items[i] of the document.
func (x *FieldIndex) sub(i int) *FieldIndex {
	if x == nil {
		return nil
	}
	return &FieldIndex{base: indexHash(keyHash(x.base, "items"), i), entries: x.entries}
}

type pathSegment struct {
	name    string
	bracket bool // written as [name]: an index or a map key
}

// splitFieldPath splits "a.b[0].c[x.y]" into a, b, [0], c, [x.y].
func splitFieldPath(p string) []pathSegment {
	var out []pathSegment
	for len(p) > 0 {
		switch p[0] {
		case '.':
			p = p[1:]
		case '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				out = append(out, pathSegment{name: p[1:], bracket: true})
				return out
			}
			out = append(out, pathSegment{name: p[1:end], bracket: true})
			p = p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			out = append(out, pathSegment{name: p[:end]})
			p = p[end:]
		}
	}
	return out
}

// FNV-1a over the parent hash, a tag byte (key or index) and the segment.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func keyHash(parent uint64, key string) uint64 {
	h := mixUint(fnvOffset, parent)
	h = (h ^ 'k') * fnvPrime
	for i := 0; i < len(key); i++ {
		h = (h ^ uint64(key[i])) * fnvPrime
	}
	return h
}

func indexHash(parent uint64, i int) uint64 {
	h := mixUint(fnvOffset, parent)
	h = (h ^ 'i') * fnvPrime
	return mixUint(h, uint64(i))
}

func mixUint(h, v uint64) uint64 {
	for i := 0; i < 8; i++ {
		h = (h ^ (v & 0xff)) * fnvPrime
		v >>= 8
	}
	return h
}

// Export is the index as plain numbers (its root hash and entries), for
// carrying an object between processes (a review's shard file);
// ImportFieldIndex makes the same index again. A nil index exports as
// ok false.
func (x *FieldIndex) Export() (base uint64, entries []uint64, ok bool) {
	if x == nil {
		return 0, nil, false
	}
	return x.base, x.entries, true
}

// ImportFieldIndex is the index Export gave base and entries of. An
// entry's line is bounded by the packing (24 bits), so no value read
// from a file can make a line out of range.
func ImportFieldIndex(base uint64, entries []uint64) *FieldIndex {
	return &FieldIndex{base: base, entries: entries}
}
