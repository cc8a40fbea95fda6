package transform

import (
	"fmt"
	"sort"
	"strings"

	"github.com/routeguard/routeguard/internal/manifest"
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
	services := make([]string, 0, len(weights))
	for s := range weights {
		services = append(services, s)
	}
	sort.Strings(services)
	for _, svc := range services {
		backends := weights[svc]
		targets := findTargets(set, svc, backends)
		if len(targets) == 0 {
			return fmt.Errorf("transforms.weights.%s: no VirtualService destination of host %s and no HTTPRoute or GRPCRoute backendRef named %s-<backend> or <backend> uses backends %s; check the service name",
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
	for _, o := range set.ByKind("networking.istio.io", "VirtualService") {
		spec, _ := o.Body["spec"].(map[string]any)
		for _, kind := range []string{"http", "tcp", "tls"} {
			routes, _ := spec[kind].([]any)
			for i, r := range routes {
				rm, _ := r.(map[string]any)
				dests, _ := rm["route"].([]any)
				t := target{obj: o, path: fmt.Sprintf("spec.%s[%d].route", kind, i)}
				hit := false
				for _, d := range dests {
					dm, _ := d.(map[string]any)
					dest, _ := dm["destination"].(map[string]any)
					host, _ := dest["host"].(string)
					subset, _ := dest["subset"].(string)
					name := ""
					if shortHost(host) == svc && dm != nil {
						name = subset
						if name == "" {
							name = "(no subset)"
						}
						hit = true
					}
					t.items = append(t.items, dm)
					t.names = append(t.names, name)
				}
				if hit {
					out = append(out, t)
				}
			}
		}
	}
	for _, kind := range []string{"HTTPRoute", "GRPCRoute", "TCPRoute", "TLSRoute"} {
		for _, o := range set.ByKind("gateway.networking.k8s.io", kind) {
			spec, _ := o.Body["spec"].(map[string]any)
			rules, _ := spec["rules"].([]any)
			for i, r := range rules {
				rm, _ := r.(map[string]any)
				refs, _ := rm["backendRefs"].([]any)
				t := target{obj: o, path: fmt.Sprintf("spec.rules[%d].backendRefs", i)}
				hit := false
				for _, ref := range refs {
					bm, _ := ref.(map[string]any)
					name, _ := bm["name"].(string)
					b := backendOf(name, svc, backends)
					if b != "" && bm != nil {
						hit = true
					}
					t.items = append(t.items, bm)
					t.names = append(t.names, b)
				}
				if hit {
					out = append(out, t)
				}
			}
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

// shortHost returns the service name of an Istio destination host
// ("reviews", "reviews.ns", "reviews.ns.svc.cluster.local" -> "reviews").
func shortHost(host string) string {
	name, _, _ := strings.Cut(host, ".")
	return name
}

func keys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
