package routing

import (
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// WeightedList is one list of weighted backends of one object: the
// destinations of a VirtualService route (spec.http[0].route) or the
// backendRefs of a Gateway API route rule (spec.rules[0].backendRefs).
type WeightedList struct {
	Object  *manifest.Object
	Path    string
	Entries []Backend
}

// Backend is one entry of a weighted list.
type Backend struct {
	// Item is the entry itself; setting Item["weight"] changes the object.
	Item map[string]any
	// Service is the destination's short host (Istio) or the backendRef's
	// name (Gateway API).
	Service string
	// Subset is the Istio destination's subset ("" for Gateway API).
	Subset string
	// Weight is the entry's weight, with the API's default when absent
	// (Istio: 0, read as "the rest"; Gateway API: 1).
	Weight int64
}

// WeightedLists walks every weighted list of the set's VirtualServices
// (http, tcp and tls routes) and Gateway API routes (every route kind), in
// the set's order. Entries that are not objects are left out.
func WeightedLists(set *manifest.Set) []WeightedList {
	var out []WeightedList
	for _, o := range set.ByKind(IstioGroup, "VirtualService") {
		for _, section := range []string{"http", "tcp", "tls"} {
			for i, r := range field.Maps(o.Body, "spec", section) {
				l := WeightedList{Object: o, Path: fmt.Sprintf("spec.%s[%d].route", section, i)}
				for _, d := range field.Maps(r, "route") {
					w, _ := field.Int(d, "weight")
					l.Entries = append(l.Entries, Backend{Item: d, Service: ShortHost(field.String(d, "destination", "host")),
						Subset: field.String(d, "destination", "subset"), Weight: w})
				}
				out = append(out, l)
			}
		}
	}
	for _, gk := range GatewayAPIRoutes {
		for _, o := range set.ByKind(gk.Group, gk.Kind) {
			for i, r := range field.Maps(o.Body, "spec", "rules") {
				l := WeightedList{Object: o, Path: fmt.Sprintf("spec.rules[%d].backendRefs", i)}
				for _, ref := range field.Maps(r, "backendRefs") {
					w, ok := field.Int(ref, "weight")
					if !ok {
						w = 1
					}
					l.Entries = append(l.Entries, Backend{Item: ref, Service: field.String(ref, "name"), Weight: w})
				}
				out = append(out, l)
			}
		}
	}
	return out
}

// ShortHost returns the service name of an Istio destination host
// ("reviews", "reviews.ns", "reviews.ns.svc.cluster.local" -> "reviews").
func ShortHost(host string) string {
	name, _, _ := strings.Cut(host, ".")
	return name
}
