package routing

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/manifest"
)

// API groups of the routing kinds.
const (
	GatewayAPIGroup = "gateway.networking.k8s.io"
	IstioGroup      = "networking.istio.io"
	IngressGroup    = "networking.k8s.io"
	// GatewayAPIExperimentalGroup holds the experimental channel's X kinds.
	GatewayAPIExperimentalGroup = "gateway.networking.x-k8s.io"
)

// Kind is a routing kind and what routeguard does with it. Kinds is the one
// list of them: the analysis (Checked, GatewayAPIRoutes), the health checks
// (HealthChecked: lua-health's generator, the bundles, Argo CD's built-in
// checks, docs/health.md) and the notifications (Alerted: the kinds of the
// triggers and templates) read it.
type Kind struct {
	manifest.GroupKind
	// Route: a Gateway API route (rules with weighted backendRefs,
	// parentRefs to Gateways).
	Route bool
	// Alerted: its health decides routeguard's
	// on-routeguard-route-degraded notification and its presence makes an
	// application a routing application. Alerted kinds are checked.
	Alerted bool
	// Checked: its presence means routing was checked (RG0100 when a run
	// holds none of the checked kinds).
	Checked bool
	// Health is the health check routeguard ships for the kind (Lua for
	// Argo CD, CEL for Flux); nil: none.
	Health *Health
}

// Health is how the health check of a kind is generated from
// lua-health/_templates, and since when Argo CD has one built in.
type Health struct {
	// Template is route, gateway or istio.
	Template string
	// List and Ref name the route template's status entries and their
	// reference (parents and parentRef; ancestors and ancestorRef),
	// SpecRefs the spec's references that must each have an entry.
	List, Ref, SpecRefs string
	// NeedResolved: an entry must also have ResolvedRefs True. SkipStale:
	// entries whose Accepted is stale are left aside while another entry is
	// current (Argo CD's route checks do the same; its BackendTLSPolicy
	// check waits for every ancestor).
	NeedResolved, SkipStale bool
	// ArgoCDSince is the first Argo CD release that ships a built-in health
	// check for the kind (resource_customizations/<group>/<Kind>), "" for
	// none. Read from Argo CD's release tags and module sources;
	// compat/argocd checks it against the tested release's code.
	ArgoCDSince string
}

// routeHealth is the health of the Gateway API route kinds.
var routeHealth = Health{Template: "route", List: "parents", Ref: "parentRef", SpecRefs: "parentRefs", NeedResolved: true, SkipStale: true}

func withSince(h Health, since string) *Health {
	h.ArgoCDSince = since
	return &h
}

// Kinds are the routing kinds, alerted ones first in the order the
// notification templates list them.
var Kinds = []Kind{
	{GroupKind: manifest.GroupKind{Group: GatewayAPIGroup, Kind: "HTTPRoute"}, Route: true, Alerted: true, Health: withSince(routeHealth, "3.1")},
	{GroupKind: manifest.GroupKind{Group: GatewayAPIGroup, Kind: "GRPCRoute"}, Route: true, Alerted: true, Health: withSince(routeHealth, "3.1")},
	{GroupKind: manifest.GroupKind{Group: GatewayAPIGroup, Kind: "TLSRoute"}, Route: true, Alerted: true, Health: withSince(routeHealth, "3.6")},
	{GroupKind: manifest.GroupKind{Group: GatewayAPIGroup, Kind: "TCPRoute"}, Route: true, Alerted: true, Health: withSince(routeHealth, "")},
	{GroupKind: manifest.GroupKind{Group: GatewayAPIGroup, Kind: "UDPRoute"}, Route: true, Alerted: true, Health: withSince(routeHealth, "")},
	{GroupKind: manifest.GroupKind{Group: GatewayAPIGroup, Kind: "Gateway"}, Alerted: true, Health: &Health{Template: "gateway", ArgoCDSince: "3.1"}},
	{GroupKind: manifest.GroupKind{Group: IstioGroup, Kind: "VirtualService"}, Alerted: true, Health: &Health{Template: "istio"}},
	{GroupKind: manifest.GroupKind{Group: IstioGroup, Kind: "DestinationRule"}, Alerted: true, Health: &Health{Template: "istio"}},
	{GroupKind: manifest.GroupKind{Group: IstioGroup, Kind: "ServiceEntry"}, Alerted: true, Health: &Health{Template: "istio"}},
	{GroupKind: manifest.GroupKind{Group: IngressGroup, Kind: "Ingress"}, Alerted: true},
	{GroupKind: manifest.GroupKind{Group: IstioGroup, Kind: "Gateway"}, Checked: true, Health: &Health{Template: "istio"}},
	{GroupKind: manifest.GroupKind{Group: GatewayAPIGroup, Kind: "BackendTLSPolicy"}, Checked: true,
		Health: &Health{Template: "route", List: "ancestors", Ref: "ancestorRef", ArgoCDSince: "3.5"}},
	{GroupKind: manifest.GroupKind{Group: GatewayAPIGroup, Kind: "ListenerSet"}, Checked: true},
	{GroupKind: manifest.GroupKind{Group: GatewayAPIExperimentalGroup, Kind: "XListenerSet"}, Checked: true},
	// Ingresses of the old extensions group.
	{GroupKind: manifest.GroupKind{Group: "extensions", Kind: "Ingress"}, Checked: true},
}

// The lists the kinds make, each in Kinds' order unless it says otherwise.
var (
	// GatewayAPIRoutes are the Gateway API route kinds, sorted.
	GatewayAPIRoutes = sortedKinds(func(k Kind) bool { return k.Route })
	// HealthChecked are the kinds routeguard ships health checks for (Lua
	// for Argo CD, CEL for Flux), sorted by group and kind.
	HealthChecked = sortedKinds(func(k Kind) bool { return k.Health != nil })
	// Alerted are the kinds whose health decides routeguard's
	// on-routeguard-route-degraded notification and whose presence makes an
	// application a routing application.
	Alerted = kinds(func(k Kind) bool { return k.Alerted })
	// Checked are the kinds whose presence means routing was checked
	// (RG0100 when a run holds none).
	Checked = kinds(func(k Kind) bool { return k.Alerted || k.Checked })
)

// Lookup returns the kind of gk.
func Lookup(gk manifest.GroupKind) (Kind, bool) {
	for _, k := range Kinds {
		if k.GroupKind == gk {
			return k, true
		}
	}
	return Kind{}, false
}

func kinds(keep func(Kind) bool) []manifest.GroupKind {
	var out []manifest.GroupKind
	for _, k := range Kinds {
		if keep(k) {
			out = append(out, k.GroupKind)
		}
	}
	return out
}

func sortedKinds(keep func(Kind) bool) []manifest.GroupKind {
	out := kinds(keep)
	slices.SortFunc(out, func(a, b manifest.GroupKind) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Kind, b.Kind))
	})
	return out
}

// IsChecked reports whether objects of gk are among Checked.
func IsChecked(gk manifest.GroupKind) bool {
	for _, c := range Checked {
		if c == gk {
			return true
		}
	}
	return false
}

// Unchecked are routing kinds routeguard does not check, named when a run
// holds no checked kind but some of these (RG0100 says why).
var Unchecked = []manifest.GroupKind{
	{Group: "route.openshift.io", Kind: "Route"},
	{Group: "traefik.io", Kind: "IngressRoute"},
	{Group: "traefik.containo.us", Kind: "IngressRoute"},
	{Group: "projectcontour.io", Kind: "HTTPProxy"},
}

// KindNames returns the kind names of gks, in order, each once.
func KindNames(gks []manifest.GroupKind) []string {
	seen := map[string]bool{}
	var out []string
	for _, gk := range gks {
		if !seen[gk.Kind] {
			seen[gk.Kind] = true
			out = append(out, gk.Kind)
		}
	}
	return out
}

// IsGatewayAPIRoute reports whether o is a Gateway API route.
func IsGatewayAPIRoute(o *manifest.Object) bool {
	if o.Group() != GatewayAPIGroup {
		return false
	}
	for _, gk := range GatewayAPIRoutes {
		if gk.Kind == o.Kind {
			return true
		}
	}
	return false
}

// UncheckedIn names the objects of set whose kinds route traffic but are
// not checked ("2 route.openshift.io Route"), in Unchecked's order; "" when
// there are none.
func UncheckedIn(set *manifest.Set) string {
	var parts []string
	for _, gk := range Unchecked {
		if n := len(set.ByKind(gk.Group, gk.Kind)); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s %s", n, gk.Group, gk.Kind))
		}
	}
	return strings.Join(parts, ", ")
}

// mentionPattern matches a line "kind: <routing kind>" of a manifest or a
// Helm template (which is not YAML until rendered), for every checked kind.
var mentionPattern = regexp.MustCompile(`(?m)^\s*kind:\s*["']?(` + kindAlternatives(Checked) + `)["']?\s*$`)

// kindAlternatives is the kind names of gks as a regular expression's
// alternatives ("Ingress|HTTPRoute|...").
func kindAlternatives(gks []manifest.GroupKind) string {
	names := KindNames(gks)
	for i, n := range names {
		names[i] = regexp.QuoteMeta(n)
	}
	return strings.Join(names, "|")
}

// Mentioned reports whether text declares an object of a routing kind (a
// template or manifest read as text, to say what an unbuilt part holds).
func Mentioned(text []byte) bool { return mentionPattern.Match(text) }

// RoutingValueKeys are the Helm values keys under which charts take
// routes and Ingresses (bjw-s's app-template: route, ingress; many charts:
// ingress, httpRoute).
var RoutingValueKeys = []string{"route", "routes", "httpRoute", "httproute", "ingress", "ingresses"}

// ValuesRouting returns the keys of values that configure routing: turned
// on (enabled: true), or naming hosts, hostnames, rules or parentRefs
// themselves or in one of their entries (app-template's route.<name>),
// not turned off (enabled: false). A key of chart settings that makes no
// route (mimir's gateway component, an ingress section left at its
// disabled default) does not count.
func ValuesRouting(values map[string]any) []string {
	var out []string
	for _, k := range RoutingValueKeys {
		if routes(values[k], 0) {
			out = append(out, k)
		}
	}
	return out
}

var routeFields = []string{"hosts", "hostnames", "host", "rules", "parentRefs", "parentRef"}

func routes(v any, depth int) bool {
	switch x := v.(type) {
	case map[string]any:
		if e, ok := x["enabled"].(bool); ok {
			return e
		}
		for _, f := range routeFields {
			if _, ok := x[f]; ok {
				return true
			}
		}
		if depth == 0 {
			for _, c := range x {
				if routes(c, 1) {
					return true
				}
			}
		}
	case []any:
		for _, c := range x {
			if routes(c, depth+1) {
				return true
			}
		}
	}
	return false
}
