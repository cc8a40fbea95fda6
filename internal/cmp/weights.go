package cmp

import (
	"fmt"
	"sort"
	"strings"

	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/manifest"
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
	for _, svc := range sortedKeys(m) {
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
func CurrentWeights(objs []*manifest.Object) map[string]string {
	out := map[string]string{}
	add := func(svc string, ws map[string]int64) {
		if _, done := out[svc]; done || svc == "" || len(ws) < 2 {
			return
		}
		var items []string
		for _, b := range sortedKeys(ws) {
			items = append(items, fmt.Sprintf("%s %d", b, ws[b]))
		}
		out[svc] = strings.Join(items, ", ")
	}
	for _, o := range objs {
		spec := asMap(o.Body["spec"])
		switch {
		case o.Group() == "networking.istio.io" && o.Kind == "VirtualService":
			for _, section := range []string{"http", "tcp", "tls"} {
				for _, r := range list(spec[section]) {
					byService := map[string]map[string]int64{}
					for _, d := range list(asMap(r)["route"]) {
						dm := asMap(d)
						dest := asMap(dm["destination"])
						host, _ := dest["host"].(string)
						subset, _ := dest["subset"].(string)
						svc, _, _ := strings.Cut(host, ".")
						if subset == "" || svc == "" {
							continue
						}
						if byService[svc] == nil {
							byService[svc] = map[string]int64{}
						}
						byService[svc][subset] = weightOf(dm, 0)
					}
					for _, svc := range sortedKeys(byService) {
						add(svc, byService[svc])
					}
				}
			}
		case o.Group() == "gateway.networking.k8s.io" && gatewayRouteKinds[o.Kind]:
			for _, r := range list(spec["rules"]) {
				refs := list(asMap(r)["backendRefs"])
				var names []string
				ws := map[string]int64{}
				for _, ref := range refs {
					rm := asMap(ref)
					name, _ := rm["name"].(string)
					names = append(names, name)
					ws[name] = weightOf(rm, 1)
				}
				svc := commonService(names)
				if svc == "" {
					continue
				}
				byBackend := map[string]int64{}
				for n, w := range ws {
					byBackend[strings.TrimPrefix(n, svc+"-")] = w
				}
				add(svc, byBackend)
			}
		}
	}
	return out
}

var gatewayRouteKinds = map[string]bool{"HTTPRoute": true, "GRPCRoute": true, "TCPRoute": true, "TLSRoute": true}

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

func weightOf(m map[string]any, def int64) int64 {
	switch v := m["weight"].(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	case int:
		return int64(v)
	}
	return def
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}
