package luahealth

import (
	"fmt"
	"strings"
)

// kind is one generated check: which template, and the values put into it.
type kind struct {
	group, kind, apiVersion string
	template                string // route, gateway or istio
	list, ref, specRefs     string // route template only
	needResolved            bool   // route template only
	// skipStale: route template only; entries whose Accepted is stale are
	// left aside while another entry is current (Argo CD's route checks do
	// the same; its BackendTLSPolicy check waits for every ancestor).
	skipStale bool
}

// kinds lists every generated check, sorted by group and kind.
var kinds = []kind{
	{group: "gateway.networking.k8s.io", kind: "BackendTLSPolicy", apiVersion: "gateway.networking.k8s.io/v1", template: "route", list: "ancestors", ref: "ancestorRef"},
	{group: "gateway.networking.k8s.io", kind: "GRPCRoute", apiVersion: "gateway.networking.k8s.io/v1", template: "route", list: "parents", ref: "parentRef", specRefs: "parentRefs", needResolved: true, skipStale: true},
	{group: "gateway.networking.k8s.io", kind: "Gateway", apiVersion: "gateway.networking.k8s.io/v1", template: "gateway"},
	{group: "gateway.networking.k8s.io", kind: "HTTPRoute", apiVersion: "gateway.networking.k8s.io/v1", template: "route", list: "parents", ref: "parentRef", specRefs: "parentRefs", needResolved: true, skipStale: true},
	{group: "gateway.networking.k8s.io", kind: "TCPRoute", apiVersion: "gateway.networking.k8s.io/v1", template: "route", list: "parents", ref: "parentRef", specRefs: "parentRefs", needResolved: true, skipStale: true},
	{group: "gateway.networking.k8s.io", kind: "TLSRoute", apiVersion: "gateway.networking.k8s.io/v1", template: "route", list: "parents", ref: "parentRef", specRefs: "parentRefs", needResolved: true, skipStale: true},
	{group: "gateway.networking.k8s.io", kind: "UDPRoute", apiVersion: "gateway.networking.k8s.io/v1", template: "route", list: "parents", ref: "parentRef", specRefs: "parentRefs", needResolved: true, skipStale: true},
	{group: "networking.istio.io", kind: "DestinationRule", apiVersion: "networking.istio.io/v1", template: "istio"},
	{group: "networking.istio.io", kind: "Gateway", apiVersion: "networking.istio.io/v1", template: "istio"},
	{group: "networking.istio.io", kind: "ServiceEntry", apiVersion: "networking.istio.io/v1", template: "istio"},
	{group: "networking.istio.io", kind: "VirtualService", apiVersion: "networking.istio.io/v1", template: "istio"},
}

// renderLua fills a Lua template's placeholders for k.
func renderLua(tmpl string, k kind) string {
	resolvedDoc, resolvedMsg := " and ResolvedRefs", " with resolved references"
	hint := "no Gateway API controller handles it, or the parentRef does not match any Gateway (check name, namespace, sectionName and port)"
	waitDoc := "status absent, no status." + k.list + ", or a spec." + k.specRefs + " entry without status"
	staleDoc := "An entry whose Accepted is stale is left\n-- aside while another entry is current (its controller may never update it); with no current\n-- entry the object waits."
	if !k.skipStale {
		staleDoc = "Until every entry is current the object waits."
	}
	if !k.needResolved {
		resolvedDoc, resolvedMsg = " (and ResolvedRefs, when reported,)", ""
		hint = "no Gateway API controller handles it, or no Gateway uses a target of this policy (check spec.targetRefs)"
		waitDoc = "status absent or no status." + k.list
	}
	r := strings.NewReplacer(
		"__KIND__", k.kind,
		"__LIST__", k.list,
		"__REF__", k.ref,
		"__SPECREFS__", k.specRefs,
		"__NEEDRESOLVED__", fmt.Sprint(k.needResolved),
		"__SKIPSTALE__", fmt.Sprint(k.skipStale),
		"__STALEDOC__", staleDoc,
		"__WHO__", strings.TrimSuffix(k.list, "s"),
		"__RESOLVEDDOC__", resolvedDoc,
		"__RESOLVEDMSG__", resolvedMsg,
		"__WAITDOC__", waitDoc,
		"__HINT__", hint,
	)
	return r.Replace(tmpl)
}
