package templatelimit

import (
	"fmt"
	"maps"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/Masterminds/sprig/v3"
)

// DefaultMax is the default limit of one template's output: the default
// --max-file-size (manifest.DefaultMaxFileBytes), since what a template
// makes is a manifest file.
const DefaultMax = 64 << 20

// sprigFuncs are Sprig's functions, which the bounded ones call.
var sprigFuncs = sprig.TxtFuncMap()

// Bounded names the functions Funcs replaces.
var Bounded = []string{
	"cat", "indent", "join", "nindent", "print", "printf", "println", "quote",
	"randAlpha", "randAlphaNum", "randAscii", "randBytes", "randInt", "randNumeric",
	"repeat", "replace", "seq", "shuffle", "split", "splitList", "splitn", "squote",
	"until", "untilStep", "uuidv4",
}

// TooLargeError is a template function's result refused for its size.
type TooLargeError struct {
	Func  string // the template function, e.g. "repeat"
	Bytes int64  // what the result would take (bytes; a lower bound when huge)
	Max   int64  // the limit of one template's output
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s would make %s, over the %s limit of one template's output; "+
		"the template asks for more than any manifest holds (raise --max-file-size if it is legitimate)",
		e.Func, human(e.Bytes), human(e.Max))
}

func human(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// Funcs returns the bounded replacements of the functions named in
// Bounded, for a template whose output may hold at most max bytes, the
// random ones drawing from a stream of their own seeded the same for
// every call of Funcs (random.go): call it once per render. Lay
// them over the function map (Helm's CustomTemplateFuncs, or after Sprig's
// map for an ApplicationSet); builtins print, printf and println are
// replaced too (text/template lets a function map override them).
func Funcs(max int64, random Random) template.FuncMap {
	b := bounds{max: max}
	fm := template.FuncMap{
		"repeat":    b.repeat,
		"indent":    b.indent,
		"nindent":   b.nindent,
		"replace":   b.replace,
		"join":      b.join,
		"quote":     b.quote,
		"squote":    b.squote,
		"cat":       b.cat,
		"print":     b.print,
		"println":   b.println,
		"printf":    b.printf,
		"until":     b.until,
		"untilStep": b.untilStep,
		"seq":       b.seq,
		"splitList": b.splitList,
		"split":     b.split,
		"splitn":    b.splitn,
	}
	src := sources(random)
	for name, gen := range src.strings {
		fm[name] = b.random(name, gen)
	}
	fm["randBytes"] = b.randBytes(src.bytes)
	maps.Copy(fm, src.others)
	return fm
}

type bounds struct{ max int64 }

func (b bounds) check(fn string, size int64) error {
	if size > b.max || size < 0 {
		if size < 0 {
			size = 1 << 62 // overflowed: astronomically large
		}
		return &TooLargeError{Func: fn, Bytes: size, Max: b.max}
	}
	return nil
}

// mul is a*b, saturating (both non-negative).
func mul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > (1<<62)/b {
		return 1 << 62
	}
	return a * b
}

// negative is Sprig's panic on a negative count (strings.Repeat, make),
// as an error that says so.
func negative(fn string, n int) error {
	return fmt.Errorf("%s: the count %d is negative", fn, n)
}

func (b bounds) repeat(count int, s string) (string, error) {
	if count < 0 {
		return "", negative("repeat", count)
	}
	if err := b.check("repeat", mul(int64(count), int64(len(s)))); err != nil {
		return "", err
	}
	return sprigFuncs["repeat"].(func(int, string) string)(count, s), nil
}

// indented is the size of indent's result: every line gets the pad.
func indented(spaces int, v string) int64 {
	lines := int64(strings.Count(v, "\n")) + 1
	return int64(len(v)) + mul(lines, int64(spaces))
}

func (b bounds) indent(spaces int, v string) (string, error) {
	if spaces < 0 {
		return "", negative("indent", spaces)
	}
	if err := b.check("indent", indented(spaces, v)); err != nil {
		return "", err
	}
	return sprigFuncs["indent"].(func(int, string) string)(spaces, v), nil
}

func (b bounds) nindent(spaces int, v string) (string, error) {
	if spaces < 0 {
		return "", negative("nindent", spaces)
	}
	if err := b.check("nindent", indented(spaces, v)+1); err != nil {
		return "", err
	}
	return sprigFuncs["nindent"].(func(int, string) string)(spaces, v), nil
}

func (b bounds) replace(old, new, src string) (string, error) {
	var n int64
	if old == "" {
		n = int64(utf8.RuneCountInString(src)) + 1
	} else {
		n = int64(strings.Count(src, old))
	}
	if grow := int64(len(new) - len(old)); grow > 0 {
		if err := b.check("replace", int64(len(src))+mul(n, grow)); err != nil {
			return "", err
		}
	}
	return sprigFuncs["replace"].(func(string, string, string) string)(old, new, src), nil
}

func (b bounds) join(sep string, v any) (string, error) {
	parts := sprigFuncs["toStrings"].(func(any) []string)(v)
	size := mul(int64(max(len(parts)-1, 0)), int64(len(sep)))
	for _, p := range parts {
		size += int64(len(p))
	}
	if err := b.check("join", size); err != nil {
		return "", err
	}
	return strings.Join(parts, sep), nil
}

// argBytes is the bytes of the string arguments of a variadic function
// (what its result at least holds; other values are formatted step by
// step, which the watchdog bounds).
func argBytes(args []any) int64 {
	var n int64
	for _, a := range args {
		switch v := a.(type) {
		case string:
			n += int64(len(v)) + 1
		case []byte:
			n += int64(len(v)) + 1
		}
	}
	return n
}

func (b bounds) quote(args ...any) (string, error) {
	if err := b.check("quote", argBytes(args)); err != nil {
		return "", err
	}
	return sprigFuncs["quote"].(func(...any) string)(args...), nil
}

func (b bounds) squote(args ...any) (string, error) {
	if err := b.check("squote", argBytes(args)); err != nil {
		return "", err
	}
	return sprigFuncs["squote"].(func(...any) string)(args...), nil
}

func (b bounds) cat(args ...any) (string, error) {
	if err := b.check("cat", argBytes(args)); err != nil {
		return "", err
	}
	return sprigFuncs["cat"].(func(...any) string)(args...), nil
}

func (b bounds) print(args ...any) (string, error) {
	if err := b.check("print", argBytes(args)); err != nil {
		return "", err
	}
	return fmt.Sprint(args...), nil
}

func (b bounds) println(args ...any) (string, error) {
	if err := b.check("println", argBytes(args)); err != nil {
		return "", err
	}
	return fmt.Sprintln(args...), nil
}

func (b bounds) printf(format string, args ...any) (string, error) {
	if err := b.check("printf", formatBytes(format, args)); err != nil {
		return "", err
	}
	return fmt.Sprintf(format, args...), nil
}

// random bounds Sprig's random strings: count runes of up to 4 bytes
// while they are made.
// steps is the length of Sprig's untilStep(start, stop, step).
func steps(start, stop, step int) int64 {
	switch {
	case stop < start && step < 0:
		d, s := uint64(start)-uint64(stop), uint64(-int64(step))
		return int64(min(d/s+min(d%s, 1), 1<<62))
	case stop > start && step > 0:
		d, s := uint64(stop)-uint64(start), uint64(step)
		return int64(min(d/s+min(d%s, 1), 1<<62))
	}
	return 0
}

// intBytes is what one int of a list takes.
const intBytes = 8

func (b bounds) until(count int) ([]int, error) {
	step := 1
	if count < 0 {
		step = -1
	}
	if err := b.check("until", mul(steps(0, count, step), intBytes)); err != nil {
		return nil, err
	}
	return sprigFuncs["until"].(func(int) []int)(count), nil
}

func (b bounds) untilStep(start, stop, step int) ([]int, error) {
	if err := b.check("untilStep", mul(steps(start, stop, step), intBytes)); err != nil {
		return nil, err
	}
	return sprigFuncs["untilStep"].(func(int, int, int) []int)(start, stop, step), nil
}

// seq makes its numbers as a list, then as text: count them as 24 bytes
// each (8 in the list, up to 20 digits and a space).
func (b bounds) seq(params ...int) (string, error) {
	var n int64
	switch len(params) {
	case 1:
		if params[0] < 1 {
			n = steps(1, params[0]-1, -1)
		} else {
			n = steps(1, params[0]+1, 1)
		}
	case 2:
		if params[1] < params[0] {
			n = steps(params[0], params[1]-1, -1)
		} else {
			n = steps(params[0], params[1]+1, 1)
		}
	case 3:
		start, step, end := params[0], params[1], params[2]
		if end < start {
			n = steps(start, end-1, step)
		} else {
			n = steps(start, end+1, step)
		}
	}
	if err := b.check("seq", mul(n, 24)); err != nil {
		return "", err
	}
	return sprigFuncs["seq"].(func(...int) string)(params...), nil
}

// parts is the number of pieces strings.Split(s, sep) makes; each takes a
// string header (16 bytes), a map entry of split more.
func parts(s, sep string) int64 {
	if sep == "" {
		return int64(utf8.RuneCountInString(s))
	}
	return int64(strings.Count(s, sep)) + 1
}

func (b bounds) splitList(sep, orig string) ([]string, error) {
	if err := b.check("splitList", mul(parts(orig, sep), 16)); err != nil {
		return nil, err
	}
	return sprigFuncs["splitList"].(func(string, string) []string)(sep, orig), nil
}

func (b bounds) split(sep, orig string) (map[string]string, error) {
	if err := b.check("split", mul(parts(orig, sep), 64)); err != nil {
		return nil, err
	}
	return sprigFuncs["split"].(func(string, string) map[string]string)(sep, orig), nil
}

func (b bounds) splitn(sep string, n int, orig string) (map[string]string, error) {
	p := parts(orig, sep)
	if n >= 0 && int64(n) < p {
		p = int64(n)
	}
	if err := b.check("splitn", mul(p, 64)); err != nil {
		return nil, err
	}
	return sprigFuncs["splitn"].(func(string, int, string) map[string]string)(sep, n, orig), nil
}
