package manifestdiff

import (
	"regexp"

	"github.com/routeguard/routeguard/internal/manifest"
)

// kustomizeHash is the suffix Kustomize's name-hash gives generated
// ConfigMaps and Secrets: "-" and ten characters of its alphabet (hex
// with 0, 1, 3, a and e replaced by g, h, k, m and t).
var kustomizeHash = regexp.MustCompile(`-[2456789bcdfghkmt]{10}$`)

// pairRenamed pairs each removed object with the added one of the same
// kind and namespace whose name is the same but for a Kustomize hash
// suffix, when exactly one of each has that name.
func pairRenamed(removed, added []manifest.Key, base, head map[manifest.Key]side) map[manifest.Key]manifest.Key {
	type stem struct {
		group, kind, ns, name string
	}
	stemOf := func(k manifest.Key) (stem, bool) {
		loc := kustomizeHash.FindStringIndex(k.Name)
		if loc == nil {
			return stem{}, false
		}
		return stem{k.Group, k.Kind, k.Namespace, k.Name[:loc[0]]}, true
	}
	gone, came := map[stem][]manifest.Key{}, map[stem][]manifest.Key{}
	for _, k := range removed {
		if s, ok := stemOf(k); ok {
			gone[s] = append(gone[s], k)
		}
	}
	for _, k := range added {
		if s, ok := stemOf(k); ok {
			came[s] = append(came[s], k)
		}
	}
	out := map[manifest.Key]manifest.Key{}
	for s, g := range gone {
		if c := came[s]; len(g) == 1 && len(c) == 1 && base[g[0]].app == head[c[0]].app {
			out[g[0]] = c[0]
		}
	}
	return out
}
