// Package ingress holds the Ingress analyzers: backends (Service and port,
// by name or number), host+path claimed twice within a class, TLS hosts no
// rule serves, and the Ingress class (missing, or the deprecated annotation).
package ingress

import (
	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Group is the Ingress API group.
const Group = "networking.k8s.io"

// classAnnotation is the deprecated annotation naming an Ingress's class.
const classAnnotation = "kubernetes.io/ingress.class"

// defaultClassAnnotation marks an IngressClass as the cluster's default.
const defaultClassAnnotation = "ingressclass.kubernetes.io/is-default-class"

// Analyzers returns the package's analyzers.
func Analyzers() []analysis.Analyzer {
	return []analysis.Analyzer{Backends{}, Class{}, DuplicatePaths{}, TLSHosts{}}
}

func ingresses(c *analysis.Context) []*manifest.Object {
	// extensions/v1beta1 Ingresses are long gone from clusters; the group
	// networking.k8s.io covers v1 (and v1beta1 in old charts).
	return c.Objects().ByKind(Group, "Ingress")
}

var ingressInput = manifest.GroupKind{Group: Group, Kind: "Ingress"}

// className returns the class an Ingress asks for: spec.ingressClassName,
// else the deprecated annotation, else "" (the default class).
func className(o *manifest.Object) string {
	if n := field.String(o.Body, "spec", "ingressClassName"); n != "" {
		return n
	}
	return o.Annotations()[classAnnotation]
}

// defaultClass returns the name of the IngressClass marked default, if any
// is rendered or among the context objects.
func defaultClass(c *analysis.Context) string {
	return c.Memo("ingress.defaultClass", func() any {
		for _, s := range []*manifest.Set{c.Objects(), c.ContextObjects()} {
			for _, ic := range s.ByKind(Group, "IngressClass") {
				if ic.Annotations()[defaultClassAnnotation] == "true" {
					return ic.Name
				}
			}
		}
		return ""
	}).(string)
}
