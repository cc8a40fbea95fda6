package printable

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Cut shortens s to its first n characters (runes) and says how many it
// left out: "name…(+29,980 characters)". Text of n characters or fewer is
// returned as it is; a cut never splits a character.
func Cut(s string, n int) string {
	if n < 0 {
		n = 0
	}
	if len(s) <= n { // bytes ≥ runes: short enough
		return s
	}
	total := utf8.RuneCountInString(s)
	if total <= n {
		return s
	}
	i, seen := 0, 0
	for i < len(s) && seen < n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		seen++
	}
	return s[:i] + "…(+" + Count(total-n) + " characters)"
}

// Count writes n with thousands separators: 29980 as "29,980".
func Count(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// collapseSep separates the parts of a chained Go error ("a: b: c").
const collapseSep = ": "

// maxRepeatParts is the longest run of parts Collapse looks for repeats of.
const maxRepeatParts = 16

// Collapse writes a run of parts of a chained error message that repeats
// three times or more once, with how many repeats it left out. A Helm
// template that includes itself fails with the same "template: x:1:20:
// executing "r" at <include "r" .>: error calling include:" a thousand
// times (93 KB on stderr); collapsed, it is said once and counted.
func Collapse(s string) string {
	if len(s) < 256 { // too short to hold a run worth collapsing
		return s
	}
	parts := strings.SplitAfter(s, collapseSep)
	var b strings.Builder
	for i := 0; i < len(parts); {
		bestK, bestReps := 0, 0
		for k := 1; k <= maxRepeatParts && i+2*k <= len(parts); k++ {
			reps := 1
			for i+(reps+1)*k <= len(parts) && sameParts(parts[i:i+k], parts[i+reps*k:i+(reps+1)*k]) {
				reps++
			}
			if reps >= 3 && k*reps > bestK*bestReps {
				bestK, bestReps = k, reps
			}
		}
		if bestK == 0 {
			b.WriteString(parts[i])
			i++
			continue
		}
		for _, p := range parts[i : i+bestK] {
			b.WriteString(p)
		}
		b.WriteString("[the same " + Count(bestK) + plural(bestK, " part", " parts") + " " + Count(bestReps-1) + " more times]" + collapseSep)
		i += bestK * bestReps
	}
	return b.String()
}

func sameParts(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
