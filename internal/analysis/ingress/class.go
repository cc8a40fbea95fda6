package ingress

import (
	"context"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Class checks how an Ingress names its class: not at all while no
// IngressClass is marked default, or through the deprecated annotation.
type Class struct{}

// Metadata implements analysis.Analyzer.
func (Class) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name:        "ingress.Class",
		Description: "Finds Ingresses without ingressClassName when no IngressClass is default, and uses of the deprecated kubernetes.io/ingress.class annotation.",
		Doc:         "No `ingressClassName` while no IngressClass (rendered or in context) is marked default; the deprecated `kubernetes.io/ingress.class` annotation, except for GKE's classes (`gce`, `gce-internal`), which GKE reads only from that annotation.",
		Inputs:      []manifest.GroupKind{ingressInput, {Group: Group, Kind: "IngressClass"}},
	}
}

// Analyze implements analysis.Analyzer.
func (Class) Analyze(ctx context.Context, c *analysis.Context) error {
	for _, ing := range ingresses(c) {
		if err := ctx.Err(); err != nil {
			return err
		}
		annot, hasAnnot := ing.Annotations()[classAnnotation]
		// GKE's Ingress controller reads only the annotation: its docs say
		// a GKE Ingress cannot be named with spec.ingressClassName.
		if hasAnnot && classNames[annot] != controllerGKE {
			c.ReportCode(ing, analysis.CodeIngressClassAnnot, classAnnotation, annot)
		}
		if field.String(ing.Body, "spec", "ingressClassName") == "" && !hasAnnot && defaultClass(c) == "" {
			c.ReportCode(ing, analysis.CodeIngressNoClass, defaultClassAnnotation)
		}
	}
	return nil
}
