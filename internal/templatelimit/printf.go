package templatelimit

import "strconv"

// fmtMaxWidth is the largest width or precision fmt honours (larger ones
// print %!(BADWIDTH) or %!(BADPREC)).
const fmtMaxWidth = 1e6

// formatBytes bounds from below what fmt.Sprintf(format, args...) holds:
// the format's text, each verb's width and precision (`%*s` takes its
// width from an argument), and every string argument once per verb that
// may print it (with explicit indexes, %[1]s, one argument prints many
// times). Non-string arguments count for nothing: fmt formats them step by
// step, which the watchdog bounds.
func formatBytes(format string, args []any) int64 {
	size := int64(len(format))
	var longest int64
	for _, a := range args {
		if n := int64(argBytes([]any{a})); n > longest {
			longest = n
		}
	}
	verbs, indexed := int64(0), false
	argi := 0
	nextInt := func() int64 {
		if argi >= len(args) {
			return 0
		}
		v, ok := args[argi].(int)
		argi++
		if !ok || v < 0 {
			return 0
		}
		return int64(min(v, fmtMaxWidth))
	}
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		if i < len(format) && format[i] == '%' {
			continue
		}
		// flags, [n], width, .precision, [n], verb
		for i < len(format) && (format[i] == '+' || format[i] == '-' || format[i] == '#' || format[i] == ' ' || format[i] == '0') {
			i++
		}
		for j := 0; j < 2; j++ { // width, then precision
			if i < len(format) && format[i] == '[' {
				indexed = true
				i = skipIndex(format, i)
			}
			if i < len(format) && format[i] == '*' {
				size += nextInt()
				i++
			} else {
				start := i
				for i < len(format) && format[i] >= '0' && format[i] <= '9' {
					i++
				}
				if w, err := strconv.Atoi(format[start:i]); err == nil {
					size += int64(min(w, fmtMaxWidth))
				}
			}
			if j == 0 && i < len(format) && format[i] == '.' {
				i++
				continue
			}
			break
		}
		if i < len(format) && format[i] == '[' {
			indexed = true
			i = skipIndex(format, i)
		}
		verbs++
		argi++
	}
	if indexed {
		return size + mul(verbs, longest)
	}
	return size + argBytes(args)
}

// skipIndex returns the position after the argument index "[n]" that
// starts at i (the end of format when it is not closed).
func skipIndex(format string, i int) int {
	for i < len(format) && format[i] != ']' {
		i++
	}
	return min(i+1, len(format))
}
