package argocdcmp

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/routing"
)

// The weights parameter is a map from service to "backend weight, ..."
// (e.g. reviews: "blue 90, green 10"), the same model as transforms.weights
// in .routeguard.yaml (internal/transform applies both): every
// VirtualService destination of host <service> with subset <backend>, and
// every Gateway API backendRef named <service>-<backend> or <backend>, gets
// the weight. A service's weights add up to 100.

// ParseWeights turns the weights parameter into transform weights.
func ParseWeights(m map[string]string) (map[string]map[string]int, error) {
	if len(m) == 0 {
		return nil, nil
	}
	var parts []string
	for _, svc := range slices.Sorted(maps.Keys(m)) {
		if strings.ContainsAny(svc, ":;") || strings.ContainsAny(m[svc], ":;") {
			return nil, fmt.Errorf("parameter weights: %q: %q: write the service as the key and \"backend weight, backend weight\" as the value", svc, m[svc])
		}
		parts = append(parts, svc+": "+m[svc])
	}
	w, err := config.ParseWeights(strings.Join(parts, "; "))
	if err != nil {
		return nil, fmt.Errorf("parameter weights: %w", err)
	}
	return w, nil
}

// CurrentWeights reports the weights of routes that split traffic between
// backends of one service, in the weights parameter's form: service ->
// "backend weight, ...". Istio destinations give host (short name) and
// subset; Gateway API backendRefs named <service>-<backend> that share the
// service give service and backend (the convention internal/transform
// follows). The first route naming a service wins.
func CurrentWeights(set *manifest.Set) map[string]string {
	out := map[string]string{}
	add := func(svc string, ws map[string]int64) {
		if _, done := out[svc]; done || svc == "" || len(ws) < 2 {
			return
		}
		var items []string
		for _, b := range slices.Sorted(maps.Keys(ws)) {
			items = append(items, fmt.Sprintf("%s %d", b, ws[b]))
		}
		out[svc] = strings.Join(items, ", ")
	}
	for _, l := range routing.WeightedLists(set) {
		if l.Object.Kind == "VirtualService" {
			byService := map[string]map[string]int64{}
			for _, e := range l.Entries {
				if e.Subset == "" || e.Service == "" {
					continue
				}
				if byService[e.Service] == nil {
					byService[e.Service] = map[string]int64{}
				}
				byService[e.Service][e.Subset] = e.Weight
			}
			for _, svc := range slices.Sorted(maps.Keys(byService)) {
				add(svc, byService[svc])
			}
			continue
		}
		var names []string
		for _, e := range l.Entries {
			names = append(names, e.Service)
		}
		svc := commonService(names)
		if svc == "" {
			continue
		}
		byBackend := map[string]int64{}
		for _, e := range l.Entries {
			byBackend[strings.TrimPrefix(e.Service, svc+"-")] = e.Weight
		}
		add(svc, byBackend)
	}
	return out
}

// commonService returns svc when every name is svc-<backend> with distinct
// backends, and there are at least two.
func commonService(names []string) string {
	if len(names) < 2 {
		return ""
	}
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	first, last := sorted[0], sorted[len(sorted)-1]
	i := 0
	for i < len(first) && i < len(last) && first[i] == last[i] {
		i++
	}
	prefix := first[:i]
	cut := strings.LastIndexByte(prefix, '-')
	if cut <= 0 {
		return ""
	}
	svc := prefix[:cut]
	for _, n := range names {
		if !strings.HasPrefix(n, svc+"-") || len(n) == len(svc)+1 {
			return ""
		}
	}
	return svc
}
