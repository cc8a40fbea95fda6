package action

import (
	"testing"

	"github.com/routeguard/routeguard/internal/resultcache"
)

// TestCorruptNotice: the notice says what did not verify (entries, or
// packs whose index did not hold) and that whole packs were removed.
func TestCorruptNotice(t *testing.T) {
	for _, tc := range []struct {
		entries, packs int64
		want           string
	}{
		{0, 0, ""},
		{1, 1, "1 entry of the validation cache D did not verify (cut short or altered); 1 pack was removed with every entry it held, and the objects validated again"},
		{3, 2, "3 entries of the validation cache D did not verify (cut short or altered); 2 packs were removed with every entry they held, and the objects validated again"},
		{0, 1, "1 pack of the validation cache D did not verify (cut short, altered or not routeguard's) and was removed; the objects were validated again"},
		{0, 4, "4 packs of the validation cache D did not verify (cut short, altered or not routeguard's) and were removed; the objects were validated again"},
	} {
		if got := corruptNotice("D", resultcache.Stats{Corrupt: tc.entries, CorruptPacks: tc.packs}); got != tc.want {
			t.Errorf("%d entries, %d packs:\n got %q\nwant %q", tc.entries, tc.packs, got, tc.want)
		}
	}
}
