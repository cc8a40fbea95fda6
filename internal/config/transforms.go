package config

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Transforms configures traffic transforms, applied after rendering and
// substitution and before analysis, the same way in `cmp generate`,
// `postrender` and `flux build` (see internal/transform).
type Transforms struct {
	// Weights sets route weights per service, e.g.
	// {"reviews": {"blue": 90, "green": 10}}: every VirtualService destination
	// of host reviews with subset blue gets 90, and every HTTPRoute backendRef
	// named reviews-blue (or blue) gets 90. Each service's weights add up to 100.
	Weights map[string]map[string]int `yaml:"weights,omitempty"`
	// SyncWaves adds Argo CD sync-wave annotations where none is set:
	// CRDs, then Namespaces, then Gateways, then routes.
	SyncWaves bool `yaml:"syncWaves,omitempty"`
}

func (t *Transforms) validate() error {
	return ValidateWeights(t.Weights)
}

// ValidateWeights checks that every service names at least one backend,
// that each weight lies in 0..100 and that a service's weights add up to 100.
func ValidateWeights(w map[string]map[string]int) error {
	for _, svc := range slices.Sorted(maps.Keys(w)) {
		backends := w[svc]
		if svc == "" {
			return fmt.Errorf("weights: a service name is empty")
		}
		if len(backends) == 0 {
			return fmt.Errorf("weights.%s: names no backend; write e.g. %s: {blue: 90, green: 10}", svc, svc)
		}
		sum := 0
		for _, b := range slices.Sorted(maps.Keys(backends)) {
			v := backends[b]
			if v < 0 || v > 100 {
				return fmt.Errorf("weights.%s.%s: weight %d is outside 0..100", svc, b, v)
			}
			sum += v
		}
		if sum != 100 {
			return fmt.Errorf("weights.%s: weights add up to %d, not 100 (%s)", svc, sum, FormatWeights(map[string]map[string]int{svc: backends}))
		}
	}
	return nil
}

// ParseWeights reads the one-line form used in Argo CD parameters and Flux
// variables: "reviews: blue 90, green 10; ratings: v1 100". The result is
// validated as in .routeguard.yaml.
func ParseWeights(s string) (map[string]map[string]int, error) {
	out := map[string]map[string]int{}
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		svc, list, ok := strings.Cut(part, ":")
		svc = strings.TrimSpace(svc)
		if !ok || svc == "" {
			return nil, fmt.Errorf("weights %q: want \"service: backend weight, backend weight\"", part)
		}
		if _, dup := out[svc]; dup {
			return nil, fmt.Errorf("weights: service %s is named twice", svc)
		}
		backends := map[string]int{}
		for _, item := range strings.Split(list, ",") {
			f := strings.Fields(item)
			if len(f) != 2 {
				return nil, fmt.Errorf("weights %q: %q is not \"backend weight\"", part, strings.TrimSpace(item))
			}
			n, err := strconv.Atoi(strings.TrimSuffix(f[1], "%"))
			if err != nil {
				return nil, fmt.Errorf("weights %q: weight %q of %s is not a whole number", part, f[1], f[0])
			}
			if _, dup := backends[f[0]]; dup {
				return nil, fmt.Errorf("weights %q: backend %s is named twice", part, f[0])
			}
			backends[f[0]] = n
		}
		out[svc] = backends
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("weights %q: names no service", s)
	}
	if err := ValidateWeights(out); err != nil {
		return nil, err
	}
	return out, nil
}

// FormatWeights renders weights in ParseWeights' form, sorted.
func FormatWeights(w map[string]map[string]int) string {
	var parts []string
	for _, svc := range slices.Sorted(maps.Keys(w)) {
		var items []string
		for _, b := range slices.Sorted(maps.Keys(w[svc])) {
			items = append(items, fmt.Sprintf("%s %d", b, w[svc][b]))
		}
		parts = append(parts, svc+": "+strings.Join(items, ", "))
	}
	return strings.Join(parts, "; ")
}
