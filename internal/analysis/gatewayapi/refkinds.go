package gatewayapi

import (
	"fmt"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/internal/tlsdata"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// refField describes a reference field of the Gateway API: which core
// kinds it accepts, and which implementation-specific kinds routeguard
// knows implementations to accept there.
type refField struct {
	core  []string // kinds of the core group ("") the field accepts
	known []manifest.GroupKind
}

var (
	// refKindBackend: route backendRefs. Service is core; the others are the
	// kinds Gateway implementations document (Multi-cluster Services, the
	// Inference Extension, Envoy Gateway, Istio, kgateway, agentgateway,
	// Traefik, Kong).
	refKindBackend = refField{core: []string{"Service"}, known: []manifest.GroupKind{
		{Group: "multicluster.x-k8s.io", Kind: "ServiceImport"},
		{Group: "net.gke.io", Kind: "ServiceImport"},
		{Group: "inference.networking.k8s.io", Kind: "InferencePool"},
		{Group: "inference.networking.x-k8s.io", Kind: "InferencePool"},
		{Group: "gateway.networking.x-k8s.io", Kind: "XBackend"},
		{Group: "gateway.envoyproxy.io", Kind: "Backend"},
		{Group: "networking.istio.io", Kind: "Hostname"},
		{Group: "gateway.kgateway.dev", Kind: "Backend"},
		{Group: "agentgateway.dev", Kind: "AgentgatewayBackend"},
		{Group: "traefik.io", Kind: "TraefikService"},
		{Group: "traefik.containo.us", Kind: "TraefikService"},
		{Group: "incubator.ingress-controller.konghq.com", Kind: "KongServiceFacade"},
	}}
	// refKindCertificate: listener tls.certificateRefs and the Gateway's
	// tls.backend.clientCertificateRef (core: a kubernetes.io/tls Secret).
	refKindCertificate = refField{core: []string{"Secret"}}
	// refKindCA: CA certificate references (BackendTLSPolicy, frontend
	// client certificate validation). Core: a ConfigMap with ca.crt;
	// implementations also read Secrets and ClusterTrustBundles.
	refKindCA = refField{core: []string{"ConfigMap", "Secret"}, known: []manifest.GroupKind{
		{Group: "certificates.k8s.io", Kind: "ClusterTrustBundle"},
	}}
)

// kindVerdict is what routeguard knows about the kind of a reference.
type kindVerdict int

const (
	kindCore      kindVerdict = iota // a core kind the field accepts
	kindExtension                    // an implementation kind (documented, or a CRD the app or a context renders)
	kindInvalid                      // a kind the field cannot accept (core or Gateway API group)
	kindUnknown                      // an unknown group: no CRD for it is rendered
)

func (f refField) verdict(c *analysis.Context, gk manifest.GroupKind) kindVerdict {
	switch {
	case gk.Group == "" && slices.Contains(f.core, gk.Kind):
		return kindCore
	case gk.Group == "", gk.Group == Group:
		return kindInvalid
	case slices.Contains(f.known, gk), crdDefines(c, gk):
		return kindExtension
	}
	return kindUnknown
}

// crdInput is what checkRefKind reads besides the referring object.
var crdInput = manifest.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// producerInputs are the kinds whose objects create Secrets and ConfigMaps
// (secrets.go), read by the TLS reference checks.
func producerInputs() []manifest.GroupKind { return tlsdata.Inputs() }

// crdDefines reports whether a CustomResourceDefinition rendered by the app
// or a context path defines gk.
func crdDefines(c *analysis.Context, gk manifest.GroupKind) bool {
	defined := c.Memo("gatewayapi.crdKinds", func() any {
		m := map[manifest.GroupKind]bool{}
		for _, s := range []*manifest.Set{c.Objects(), c.ContextObjects()} {
			for _, crd := range s.ByKind("apiextensions.k8s.io", "CustomResourceDefinition") {
				g := field.String(crd.Body, "spec", "group")
				k := field.String(crd.Body, "spec", "names", "kind")
				m[manifest.GroupKind{Group: g, Kind: k}] = true
			}
		}
		return m
	}).(map[manifest.GroupKind]bool)
	return defined[gk]
}

// checkRefKind reports a reference of o (what, e.g. "backendRef") to
// target whose kind the field cannot accept (RG0005, error) or that
// routeguard does not know (RG0006, warning), and returns the verdict.
// consequence says what happens when an implementation rejects it.
func checkRefKind(c *analysis.Context, o *manifest.Object, what string, f refField, target manifest.Key, consequence string) kindVerdict {
	gk := manifest.GroupKind{Group: target.Group, Kind: target.Kind}
	v := f.verdict(c, gk)
	switch v {
	case kindInvalid:
		c.ReportCode(o, analysis.CodeRefKindInvalid, what, groupKindString(gk), target.Name, f.accepted(), consequence)
	case kindUnknown:
		c.ReportCode(o, analysis.CodeRefKindUnknown, what, groupKindString(gk), target.Name,
			"a kind routeguard does not know and no CRD in this app or its context paths defines", consequence)
	}
	return v
}

func (f refField) accepted() string {
	var out []string
	for _, k := range f.core {
		out = append(out, k)
	}
	for _, gk := range f.known {
		out = append(out, groupKindString(gk))
	}
	return strings.Join(out, ", ")
}

// groupKindString renders "Kind" for the core group, else "Kind.group".
func groupKindString(gk manifest.GroupKind) string {
	if gk.Group == "" {
		return gk.Kind
	}
	return fmt.Sprintf("%s.%s", gk.Kind, gk.Group)
}
