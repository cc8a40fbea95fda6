package transform

import (
	"strconv"

	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// SyncWaveAnnotation is Argo CD's sync-wave annotation.
const SyncWaveAnnotation = "argocd.argoproj.io/sync-wave"

// waves orders what must exist before routes can attach: CRDs, then
// Namespaces, then gateway classes and gateways; routes go after everything
// else (wave 0, unannotated), so their backends exist when they attach.
var waves = map[manifest.GroupKind]int{
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}: -3,
	{Group: "", Kind: "Namespace"}:                                    -2,
	{Group: "gateway.networking.k8s.io", Kind: "GatewayClass"}:        -1,
	{Group: "gateway.networking.k8s.io", Kind: "Gateway"}:             -1,
	{Group: "networking.istio.io", Kind: "Gateway"}:                   -1,
	{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute"}:           1,
	{Group: "gateway.networking.k8s.io", Kind: "GRPCRoute"}:           1,
	{Group: "gateway.networking.k8s.io", Kind: "TLSRoute"}:            1,
	{Group: "gateway.networking.k8s.io", Kind: "TCPRoute"}:            1,
	{Group: "gateway.networking.k8s.io", Kind: "UDPRoute"}:            1,
	{Group: "networking.istio.io", Kind: "VirtualService"}:            1,
	{Group: "networking.k8s.io", Kind: "Ingress"}:                     1,
}

// applySyncWaves annotates objects of the kinds above that carry no
// sync-wave yet; an existing annotation is the user's choice and is kept.
func applySyncWaves(set *manifest.Set) {
	for _, o := range set.Objects() {
		w, ok := waves[o.GroupKind()]
		if !ok {
			continue
		}
		if _, set := field.Map(o.Body, "metadata", "annotations")[SyncWaveAnnotation]; set {
			continue
		}
		ann := field.EnsureMap(o.Body, "metadata", "annotations")
		ann[SyncWaveAnnotation] = strconv.Itoa(w)
	}
}
