package templatelimit

import "strconv"

// fmtMaxWidth is the largest width or precision fmt honours (larger ones
// print %!(BADWIDTH) or %!(BADPREC)).
const fmtMaxWidth = 1e6

// formatBytes bounds from below what fmt.Sprintf(format, args...) holds:
// the format's text, each verb's width and precision (`%*s` takes its
// width from an argument, `%[2]*[1]s` from the one it names), and every
// string argument once per verb that may print it (with explicit indexes
// one argument prints many times). Non-string arguments count for little:
// fmt formats them step by step, which the watchdog bounds.
func formatBytes(format string, args []any) int64 {
	size := int64(len(format))
	var longest int64
	for _, a := range args {
		longest = max(longest, argBytes([]any{a}))
	}
	intArg := func(n int) int64 {
		if n < 0 || n >= len(args) {
			return 0
		}
		v, ok := args[n].(int)
		if !ok || v < 0 {
			return 0
		}
		return int64(min(v, fmtMaxWidth))
	}
	p := formatParser{format: format}
	verbs, indexed := int64(0), false
	for p.next() {
		p.flags()
		if p.index() {
			indexed = true
		}
		if p.star() {
			size += intArg(p.arg)
			p.arg++
		} else {
			size += p.number()
		}
		if p.dot() {
			if p.index() {
				indexed = true
			}
			if p.star() {
				size += intArg(p.arg)
				p.arg++
			} else {
				size += p.number()
			}
		}
		if p.index() {
			indexed = true
		}
		p.i++ // the verb
		verbs++
		p.arg++
	}
	if indexed {
		return size + mul(verbs, longest)
	}
	return size + argBytes(args)
}

// formatParser walks a format's verbs as fmt does.
type formatParser struct {
	format string
	i      int // position in format
	arg    int // the argument the next verb or * takes
}

// next moves past the next '%' that starts a verb ("%%" is text).
func (p *formatParser) next() bool {
	for p.i < len(p.format) {
		c := p.format[p.i]
		p.i++
		if c != '%' {
			continue
		}
		if p.i < len(p.format) && p.format[p.i] == '%' {
			p.i++
			continue
		}
		return p.i <= len(p.format)
	}
	return false
}

func (p *formatParser) flags() {
	for p.i < len(p.format) && (p.format[p.i] == '+' || p.format[p.i] == '-' || p.format[p.i] == '#' || p.format[p.i] == ' ' || p.format[p.i] == '0') {
		p.i++
	}
}

// index reads an argument index "[n]", as fmt's argNumber: the next
// argument taken is the n-th.
func (p *formatParser) index() bool {
	if p.i >= len(p.format) || p.format[p.i] != '[' {
		return false
	}
	end := p.i + 1
	for end < len(p.format) && p.format[end] != ']' {
		end++
	}
	if end >= len(p.format) {
		p.i = len(p.format)
		return true
	}
	if n, err := strconv.Atoi(p.format[p.i+1 : end]); err == nil && n >= 1 {
		p.arg = n - 1
	}
	p.i = end + 1
	return true
}

func (p *formatParser) star() bool {
	if p.i < len(p.format) && p.format[p.i] == '*' {
		p.i++
		return true
	}
	return false
}

func (p *formatParser) dot() bool {
	if p.i < len(p.format) && p.format[p.i] == '.' {
		p.i++
		return true
	}
	return false
}

// number reads a width or precision in digits (capped as fmt caps it).
func (p *formatParser) number() int64 {
	start := p.i
	for p.i < len(p.format) && p.format[p.i] >= '0' && p.format[p.i] <= '9' {
		p.i++
	}
	if p.i-start > 7 {
		return fmtMaxWidth
	}
	n, err := strconv.Atoi(p.format[start:p.i])
	if err != nil {
		return 0
	}
	return int64(min(n, fmtMaxWidth))
}
