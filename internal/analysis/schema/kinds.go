package schema

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1alpha2 "sigs.k8s.io/gateway-api/apis/v1alpha2"
	gwv1alpha3 "sigs.k8s.io/gateway-api/apis/v1alpha3"

	"github.com/routeguard/routeguard/internal/manifest"
)

type typeKey struct{ apiVersion, kind string }

// typed maps each checked apiVersion+kind to a constructor of its Go type.
var typed = map[typeKey]func() any{}

func add(apiVersion, kind string, f func() any) { typed[typeKey{apiVersion, kind}] = f }

func init() {
	for _, v := range []string{"v1", "v1beta1"} {
		gv := "gateway.networking.k8s.io/" + v
		add(gv, "Gateway", func() any { return &gwv1.Gateway{} })
		add(gv, "GatewayClass", func() any { return &gwv1.GatewayClass{} })
		add(gv, "HTTPRoute", func() any { return &gwv1.HTTPRoute{} })
		add(gv, "ReferenceGrant", func() any { return &gwv1.ReferenceGrant{} })
	}
	add("gateway.networking.k8s.io/v1", "GRPCRoute", func() any { return &gwv1.GRPCRoute{} })
	add("gateway.networking.k8s.io/v1", "TLSRoute", func() any { return &gwv1.TLSRoute{} })
	add("gateway.networking.k8s.io/v1", "TCPRoute", func() any { return &gwv1.TCPRoute{} })
	add("gateway.networking.k8s.io/v1", "UDPRoute", func() any { return &gwv1.UDPRoute{} })
	add("gateway.networking.k8s.io/v1alpha2", "GRPCRoute", func() any { return &gwv1.GRPCRoute{} })
	add("gateway.networking.k8s.io/v1alpha2", "ReferenceGrant", func() any { return &gwv1.ReferenceGrant{} })
	add("gateway.networking.k8s.io/v1alpha2", "TLSRoute", func() any { return &gwv1alpha2.TLSRoute{} })
	add("gateway.networking.k8s.io/v1alpha2", "TCPRoute", func() any { return &gwv1alpha2.TCPRoute{} })
	add("gateway.networking.k8s.io/v1alpha2", "UDPRoute", func() any { return &gwv1alpha2.UDPRoute{} })
	add("gateway.networking.k8s.io/v1alpha3", "TLSRoute", func() any { return &gwv1alpha3.TLSRoute{} })

	add("networking.k8s.io/v1", "Ingress", func() any { return &networkingv1.Ingress{} })
	add("networking.k8s.io/v1", "IngressClass", func() any { return &networkingv1.IngressClass{} })
	add("v1", "Service", func() any { return &corev1.Service{} })
	add("v1", "Namespace", func() any { return &corev1.Namespace{} })
	add("v1", "Secret", func() any { return &corev1.Secret{} })
	add("apps/v1", "Deployment", func() any { return &appsv1.Deployment{} })
	add("apps/v1", "StatefulSet", func() any { return &appsv1.StatefulSet{} })
	add("apps/v1", "DaemonSet", func() any { return &appsv1.DaemonSet{} })
}

// inputs returns the group-kinds of the typed table, sorted.
func inputs() []manifest.GroupKind {
	seen := map[manifest.GroupKind]bool{}
	var out []manifest.GroupKind
	for k := range typed {
		o := manifest.Object{APIVersion: k.apiVersion, Kind: k.kind}
		gk := o.GroupKind()
		if !seen[gk] {
			seen[gk] = true
			out = append(out, gk)
		}
	}
	sortGK(out)
	return out
}

func sortGK(gks []manifest.GroupKind) {
	for i := 1; i < len(gks); i++ {
		for j := i; j > 0 && less(gks[j], gks[j-1]); j-- {
			gks[j], gks[j-1] = gks[j-1], gks[j]
		}
	}
}

func less(a, b manifest.GroupKind) bool {
	if a.Group != b.Group {
		return a.Group < b.Group
	}
	return a.Kind < b.Kind
}
