package templatelimit

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// FuzzFuncs calls each bounded function with arguments the fuzzer picks:
// a result is within a constant factor of the limit (fmt may quote or hex
// a string) or refused with a TooLargeError, never a huge allocation; and
// an allowed result is Sprig's own.
func FuzzFuncs(f *testing.F) {
	f.Add(uint8(0), "a", "b", int64(3), int64(1), int64(2))
	f.Add(uint8(3), "", "xx", int64(6000000000), int64(-1), int64(0))
	f.Add(uint8(9), "%*s%[1]q", "a", int64(1000000), int64(5), int64(7))
	f.Add(uint8(14), "\n", "y\ny", int64(-9223372036854775808), int64(9223372036854775807), int64(1))
	const max = 64 << 10
	fm := Funcs(max, Seeded)
	f.Fuzz(func(t *testing.T, pick uint8, s1, s2 string, n1, n2, n3 int64) {
		name := Bounded[int(pick)%len(Bounded)]
		fn := reflect.ValueOf(fm[name])
		typ := fn.Type()
		strs, ints := []string{s1, s2, s1 + s2}, []int64{n1, n2, n3}
		var args []reflect.Value
		for i := range typ.NumIn() {
			in := typ.In(i)
			if typ.IsVariadic() && i == typ.NumIn()-1 {
				in = in.Elem()
				for j := range 3 {
					args = append(args, arg(in, strs[j], ints[j]))
				}
				continue
			}
			args = append(args, arg(in, strs[i%3], ints[i%3]))
		}
		out := fn.Call(args)
		if errv := out[len(out)-1]; !errv.IsNil() {
			var tl *TooLargeError
			err := errv.Interface().(error)
			if !errors.As(err, &tl) && !strings.Contains(err.Error(), "is negative") {
				t.Fatalf("%s: %v", name, err)
			}
			return
		}
		if size := resultBytes(out[0]); size > 8*max+1024 {
			t.Fatalf("%s%v made %d bytes, past 8 × the %d-byte limit", name, args, size, max)
		}
		if orig, ok := sprigFuncs[name]; ok && !isRandom(name) && !reflect.DeepEqual(reflect.ValueOf(orig).Call(args)[0].Interface(), out[0].Interface()) {
			t.Fatalf("%s%v differs from Sprig's", name, args)
		}
	})
}

func arg(t reflect.Type, s string, n int64) reflect.Value {
	switch t.Kind() {
	case reflect.String:
		return reflect.ValueOf(s)
	case reflect.Int:
		return reflect.ValueOf(int(n))
	}
	// interface{}: alternate strings and ints
	if n%2 == 0 {
		return reflect.ValueOf(&s).Elem().Convert(t)
	}
	return reflect.ValueOf(int(n)).Convert(t)
}

func resultBytes(v reflect.Value) int {
	switch x := v.Interface().(type) {
	case string:
		return len(x)
	case []string:
		n := 0
		for _, s := range x {
			n += len(s) + 16
		}
		return n
	case map[string]string:
		n := 0
		for k, s := range x {
			n += len(k) + len(s) + 32
		}
		return n
	case []int:
		return 8 * len(x)
	}
	return 0
}

func isRandom(name string) bool {
	switch name {
	case "randAlpha", "randAlphaNum", "randAscii", "randNumeric", "randBytes":
		return true
	}
	return false
}
