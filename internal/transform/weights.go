package transform

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/routing"
)

// target is one weighted list of one object (a VirtualService route or a
// Gateway API rule) that holds backends of one transformed service.
type target struct {
	obj   *manifest.Object
	path  string           // e.g. spec.http[0].route
	items []map[string]any // the weighted entries
	names []string         // backend name per entry ("" when not of this service)
}

// applyWeights sets the weights of every route naming a transformed service.
func applyWeights(set *manifest.Set, weights map[string]map[string]int) error {
	for _, svc := range slices.Sorted(maps.Keys(weights)) {
		backends := weights[svc]
		targets := findTargets(set, svc, backends)
		if len(targets) == 0 {
			return fmt.Errorf("transforms.weights.%s: no VirtualService destination of host %s and no Gateway API route backendRef named %s-<backend> or <backend> uses backends %s; check the service name",
				svc, svc, svc, strings.Join(keys(backends), ", "))
		}
		seen := map[string]bool{}
		for _, t := range targets {
			present := map[string]bool{}
			for _, n := range t.names {
				if n == "" {
					continue
				}
				if _, ok := backends[n]; !ok {
					return fmt.Errorf("%s: %s %s routes to %s backend %q, which transforms.weights.%s does not name; add it (weight 0 drains it)",
						t.obj.Source, t.obj, t.path, svc, n, svc)
				}
				present[n] = true
				seen[n] = true
			}
			for _, b := range keys(backends) {
				if backends[b] > 0 && !present[b] {
					return fmt.Errorf("%s: %s %s has no %s backend %q to send %d%% to; add the destination or set its weight to 0",
						t.obj.Source, t.obj, t.path, svc, b, backends[b])
				}
			}
			for i, item := range t.items {
				if n := t.names[i]; n != "" {
					item["weight"] = int64(backends[n])
				}
			}
		}
		for _, b := range keys(backends) {
			if !seen[b] {
				return fmt.Errorf("transforms.weights.%s: no route has a %s backend %q (VirtualService subset %s, or HTTPRoute backendRef %s-%s or %s); fix the name or remove it",
					svc, svc, b, b, svc, b, b)
			}
		}
	}
	return nil
}

func findTargets(set *manifest.Set, svc string, backends map[string]int) []target {
	var out []target
	for _, l := range routing.WeightedLists(set) {
		t := target{obj: l.Object, path: l.Path}
		hit := false
		for _, e := range l.Entries {
			name := ""
			if l.Object.Kind == "VirtualService" {
				if e.Service == svc {
					name = cmp.Or(e.Subset, "(no subset)")
				}
			} else {
				name = backendOf(e.Service, svc, backends)
			}
			hit = hit || name != ""
			t.items = append(t.items, e.Item)
			t.names = append(t.names, name)
		}
		if hit {
			out = append(out, t)
		}
	}
	return out
}

// backendOf maps a backendRef name to the backend it stands for: the
// backend itself ("blue") or the service-backend convention ("reviews-blue").
// Names with the service's prefix that are not named count as an unknown
// backend of the service, so that a forgotten colour is an error.
func backendOf(name, svc string, backends map[string]int) string {
	if _, ok := backends[name]; ok {
		return name
	}
	if rest, ok := strings.CutPrefix(name, svc+"-"); ok && rest != "" {
		return rest
	}
	return ""
}

func keys(m map[string]int) []string { return slices.Sorted(maps.Keys(m)) }
