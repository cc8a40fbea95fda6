package analysis

import (
	"fmt"

	"github.com/routeguard/routeguard/internal/manifest"
)

// routingKinds are the kinds whose checks are routeguard's purpose.
var routingKinds = map[manifest.GroupKind]bool{
	{Group: "networking.k8s.io", Kind: "Ingress"}:                  true,
	{Group: "extensions", Kind: "Ingress"}:                         true,
	{Group: "gateway.networking.k8s.io", Kind: "Gateway"}:          true,
	{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute"}:        true,
	{Group: "gateway.networking.k8s.io", Kind: "GRPCRoute"}:        true,
	{Group: "gateway.networking.k8s.io", Kind: "TLSRoute"}:         true,
	{Group: "gateway.networking.k8s.io", Kind: "TCPRoute"}:         true,
	{Group: "gateway.networking.k8s.io", Kind: "UDPRoute"}:         true,
	{Group: "gateway.networking.x-k8s.io", Kind: "XListenerSet"}:   true,
	{Group: "gateway.networking.k8s.io", Kind: "ListenerSet"}:      true,
	{Group: "networking.istio.io", Kind: "VirtualService"}:         true,
	{Group: "networking.istio.io", Kind: "Gateway"}:                true,
	{Group: "networking.istio.io", Kind: "DestinationRule"}:        true,
	{Group: "networking.istio.io", Kind: "ServiceEntry"}:           true,
	{Group: "gateway.networking.k8s.io", Kind: "BackendTLSPolicy"}: true,
}

// IsRouting reports whether objects of gk route traffic (Ingress, Gateway
// API Gateways, ListenerSets and routes, Istio VirtualServices, Gateways,
// DestinationRules and ServiceEntries): the kinds routeguard exists to check.
func IsRouting(gk manifest.GroupKind) bool { return routingKinds[gk] }

// NothingChecked returns an RG0100 finding about what (the object or path
// a tree build started from, at src) when set holds no object at all, or
// no routing object, so that a run which checked nothing cannot pass as
// clean. Tree builds (routeguard flux build, the Argo CD repository build)
// add it to analysis.RunOptions.Prior; ok is false when set holds routing
// objects.
func NothingChecked(set *manifest.Set, what ObjectRef, src manifest.Source, notBuilt int) (Finding, bool) {
	n := 0
	if set != nil {
		for _, o := range set.Objects() {
			if IsRouting(o.GroupKind()) {
				return Finding{}, false
			}
			n++
		}
	}
	msg := "the build produced no objects"
	if n > 0 {
		msg = fmt.Sprintf("the build produced %d objects and not one routing object (Ingress, Gateway API Gateway or route, Istio VirtualService, Gateway, DestinationRule or ServiceEntry)", n)
	}
	if notBuilt > 0 {
		msg += fmt.Sprintf("; %d objects of the tree were skipped or failed to build", notBuilt)
	}
	msg += ", so there was nothing to check; check the path and the skipped sources, or set " + CodeNothingChecked + " to info in .routeguard.yaml where that is expected"
	return Finding{Code: CodeNothingChecked, Message: msg, Object: what, Source: src, Analyzer: "build"}, true
}
