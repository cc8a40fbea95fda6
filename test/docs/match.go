package docs

import "strings"

// Ellipsis in expected output: within a line, any text; alone on a line,
// any number of lines.
const Ellipsis = "..."

// Match reports whether the output lines got are what the page shows
// (want), with Ellipsis as a wildcard. Trailing spaces are ignored on both
// sides, and blank lines at the start and end of got.
func Match(want, got []string) bool {
	got = trimBlank(got)
	return matchLines(trimRight(want), trimRight(got))
}

func trimRight(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(l, " \t")
	}
	return out
}

func matchLines(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if strings.TrimSpace(want[0]) == Ellipsis {
		for i := 0; i <= len(got); i++ {
			if matchLines(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && matchLine(want[0], got[0]) && matchLines(want[1:], got[1:])
}

// matchLine matches one line, each Ellipsis standing for any text.
func matchLine(want, got string) bool {
	parts := strings.Split(want, Ellipsis)
	if len(parts) == 1 {
		return want == got
	}
	if !strings.HasPrefix(got, parts[0]) {
		return false
	}
	got = got[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(got, p)
		if i < 0 {
			return false
		}
		got = got[i+len(p):]
	}
	return strings.HasSuffix(got, last)
}
