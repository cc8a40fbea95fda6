package health

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// MaxListEntries bounds every list of an object that `routeguard health
// check` evaluates. The API server keeps far fewer (a Gateway API route
// has at most 32 parents, a Gateway 64 listeners, a status 8 conditions);
// past a few thousand entries Argo CD's Lua VM itself fails ("registry
// overflow"), and each entry costs memory three times over (decoded, as a
// Lua table, as a CEL value).
const MaxListEntries = 1000

// CheckBounds refuses an object holding a list longer than MaxListEntries,
// naming the field.
func CheckBounds(obj map[string]any) error {
	return checkBounds(obj, "")
}

func checkBounds(v any, path string) error {
	switch t := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			e, p := t[k], k
			if path != "" {
				p = path + "." + k
			}
			if err := checkBounds(e, p); err != nil {
				return err
			}
		}
	case []any:
		if len(t) > MaxListEntries {
			return fmt.Errorf("%s holds %d entries, more than the %d routeguard evaluates in one list "+
				"(the API server keeps at most 32 parents per route); is this an object from a cluster?", path, len(t), MaxListEntries)
		}
		for i, e := range t {
			if err := checkBounds(e, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	}
	return nil
}
