package manifestdiff

import (
	"fmt"
	"testing"
)

// BenchmarkDiffLines: the worst the cap allows, one object of 20,000
// lines a side: every line changed (Myers gives up at maxEdits, no
// anchor), a change every 7 lines (past maxEdits: the patience split),
// and a few changes (Myers alone).
func BenchmarkDiffLines(b *testing.B) {
	for _, tc := range []struct {
		name  string
		every int
	}{{"all-changed", 1}, {"every-7th", 7}, {"every-1000th", 1000}} {
		var x, y []string
		for i := range DefaultMaxObjectLines {
			l := fmt.Sprint("  key", i, ": value")
			x = append(x, l)
			if i%tc.every == 0 {
				l += " changed"
			}
			y = append(y, l)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				hunks(x, y, diffLines(x, y))
			}
		})
	}
}
