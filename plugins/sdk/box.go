package sdk

import "unsafe"

// boxer turns decoded values into interfaces with few allocations: a
// string or int64 converted to `any` normally costs one small allocation
// each (most of a request's), so the decoder places them in slabs and
// builds the interface over the slab element instead. The interface
// layout (type word, data word) is the gc compiler's for empty
// interfaces; values are written once and never changed afterwards, which
// is all an interface requires of its data.
type boxer struct {
	strs []string
	ints []int64
	anys []any
}

type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

var (
	stringType = typeOf("")
	int64Type  = typeOf(int64(0))
)

func typeOf(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).typ }

const slab = 1024

func (b *boxer) string(s string) any {
	if len(b.strs) == cap(b.strs) {
		b.strs = make([]string, 0, slab)
	}
	b.strs = append(b.strs, s)
	var v any
	*(*eface)(unsafe.Pointer(&v)) = eface{typ: stringType, data: unsafe.Pointer(&b.strs[len(b.strs)-1])}
	return v
}

func (b *boxer) int64(n int64) any {
	if len(b.ints) == cap(b.ints) {
		b.ints = make([]int64, 0, slab)
	}
	b.ints = append(b.ints, n)
	var v any
	*(*eface)(unsafe.Pointer(&v)) = eface{typ: int64Type, data: unsafe.Pointer(&b.ints[len(b.ints)-1])}
	return v
}

// slice returns a []any of length n carved from a shared slab (capacity
// limited to n, so appending to it copies instead of overwriting).
func (b *boxer) slice(n int) []any {
	if n > slab/4 {
		return make([]any, n)
	}
	if cap(b.anys)-len(b.anys) < n {
		b.anys = make([]any, 0, slab)
	}
	start := len(b.anys)
	b.anys = b.anys[:start+n]
	return b.anys[start : start+n : start+n]
}
