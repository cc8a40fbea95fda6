package routing

import (
	"fmt"
	"regexp"
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

// GatewayAPIRoutes are the Gateway API route kinds, sorted. Each has rules
// with weighted backendRefs and parentRefs to Gateways.
var GatewayAPIRoutes = []manifest.GroupKind{
	{Group: GatewayAPIGroup, Kind: "GRPCRoute"},
	{Group: GatewayAPIGroup, Kind: "HTTPRoute"},
	{Group: GatewayAPIGroup, Kind: "TCPRoute"},
	{Group: GatewayAPIGroup, Kind: "TLSRoute"},
	{Group: GatewayAPIGroup, Kind: "UDPRoute"},
}

// Istio's traffic kinds whose health routeguard checks.
var IstioTraffic = []manifest.GroupKind{
	{Group: IstioGroup, Kind: "DestinationRule"},
	{Group: IstioGroup, Kind: "Gateway"},
	{Group: IstioGroup, Kind: "ServiceEntry"},
	{Group: IstioGroup, Kind: "VirtualService"},
}

// HealthChecked are the kinds routeguard ships health checks for (Lua for
// Argo CD, CEL for Flux), sorted by group and kind.
var HealthChecked = concat(
	[]manifest.GroupKind{{Group: GatewayAPIGroup, Kind: "BackendTLSPolicy"}},
	GatewayAPIRoutes[:1],
	[]manifest.GroupKind{{Group: GatewayAPIGroup, Kind: "Gateway"}},
	GatewayAPIRoutes[1:],
	IstioTraffic,
)

// Alerted are the kinds whose health decides routeguard's on-routeguard-route-degraded
// notification and whose presence makes an application a routing
// application, in the order the notification templates list them.
var Alerted = concat(
	[]manifest.GroupKind{
		{Group: GatewayAPIGroup, Kind: "HTTPRoute"}, {Group: GatewayAPIGroup, Kind: "GRPCRoute"},
		{Group: GatewayAPIGroup, Kind: "TLSRoute"}, {Group: GatewayAPIGroup, Kind: "TCPRoute"},
		{Group: GatewayAPIGroup, Kind: "UDPRoute"}, {Group: GatewayAPIGroup, Kind: "Gateway"},
		{Group: IstioGroup, Kind: "VirtualService"}, {Group: IstioGroup, Kind: "DestinationRule"},
		{Group: IstioGroup, Kind: "ServiceEntry"}, {Group: IngressGroup, Kind: "Ingress"},
	},
)

// Checked are the kinds whose presence means routing was checked (RG0100
// when a run holds none): the alerted kinds, Istio Gateways, Gateway API
// BackendTLSPolicies and ListenerSets (and their experimental
// XListenerSets), and Ingresses of the old extensions group.
var Checked = concat(Alerted, []manifest.GroupKind{
	{Group: IstioGroup, Kind: "Gateway"},
	{Group: GatewayAPIGroup, Kind: "BackendTLSPolicy"},
	{Group: GatewayAPIGroup, Kind: "ListenerSet"},
	{Group: GatewayAPIExperimentalGroup, Kind: "XListenerSet"},
	{Group: "extensions", Kind: "Ingress"},
})

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

func concat(lists ...[]manifest.GroupKind) []manifest.GroupKind {
	var out []manifest.GroupKind
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
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
// Helm template (which is not YAML until rendered).
var mentionPattern = regexp.MustCompile(`(?m)^\s*kind:\s*["']?(Ingress|HTTPRoute|GRPCRoute|TLSRoute|TCPRoute|UDPRoute|Gateway|ListenerSet|XListenerSet|VirtualService|DestinationRule|ServiceEntry)["']?\s*$`)

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
