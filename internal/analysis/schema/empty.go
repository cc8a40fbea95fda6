package schema

import (
	"context"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// EmptySpecs reports routing objects whose spec is missing or lacks the
// fields their kind cannot do without.
type EmptySpecs struct{}

// required lists, per kind, the spec fields of which at least one must be set.
var required = []struct {
	gk     manifest.GroupKind
	fields []string
}{
	{manifest.GroupKind{Group: "gateway.networking.k8s.io", Kind: "Gateway"}, []string{"listeners"}},
	{manifest.GroupKind{Group: "gateway.networking.k8s.io", Kind: "GRPCRoute"}, []string{"parentRefs", "rules", "hostnames"}},
	{manifest.GroupKind{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute"}, []string{"parentRefs", "rules", "hostnames"}},
	{manifest.GroupKind{Group: "gateway.networking.k8s.io", Kind: "ReferenceGrant"}, []string{"from"}},
	{manifest.GroupKind{Group: "gateway.networking.k8s.io", Kind: "ReferenceGrant"}, []string{"to"}},
	{manifest.GroupKind{Group: "gateway.networking.k8s.io", Kind: "TCPRoute"}, []string{"rules"}},
	{manifest.GroupKind{Group: "gateway.networking.k8s.io", Kind: "TLSRoute"}, []string{"rules"}},
	{manifest.GroupKind{Group: "networking.istio.io", Kind: "DestinationRule"}, []string{"host"}},
	{manifest.GroupKind{Group: "networking.istio.io", Kind: "VirtualService"}, []string{"http", "tcp", "tls", "delegate"}},
	{manifest.GroupKind{Group: "networking.k8s.io", Kind: "Ingress"}, []string{"rules", "defaultBackend"}},
}

// Metadata implements analysis.Analyzer.
func (EmptySpecs) Metadata() analysis.Metadata {
	var in []manifest.GroupKind
	for _, r := range required {
		if len(in) == 0 || in[len(in)-1] != r.gk {
			in = append(in, r.gk)
		}
	}
	return analysis.Metadata{
		Name:        "schema.EmptySpecs",
		Description: "Finds routing objects whose spec is missing or lacks every field that makes the object do something.",
		Doc:         "Routes, Gateways, ReferenceGrants, Ingresses, VirtualServices and DestinationRules whose spec is missing or sets nothing that makes them do anything. The other analyzers read malformed fields as absent and never panic; the validation analyzers report them.",
		Inputs:      in,
	}
}

// Analyze implements analysis.Analyzer.
func (EmptySpecs) Analyze(ctx context.Context, c *analysis.Context) error {
	noSpec := map[*manifest.Object]bool{}
	for _, r := range required {
		for _, o := range c.Objects().ByKind(r.gk.Group, r.gk.Kind) {
			if err := ctx.Err(); err != nil {
				return err
			}
			spec, isMap := o.Body["spec"].(map[string]any)
			if !isMap {
				if o.Body["spec"] == nil && !noSpec[o] {
					noSpec[o] = true
					c.ReportCode(o, analysis.CodeEmptySpec, o.Kind, "has no spec (it needs spec."+r.fields[0]+")")
				}
				continue // a spec of the wrong type is the API server validation's (validation.CustomResources)
			}
			set := false
			for _, f := range r.fields {
				if l, isList := spec[f].([]any); isList && len(l) == 0 {
					continue
				}
				if field.Has(spec, f) {
					set = true
				}
			}
			if !set {
				c.ReportCode(o, analysis.CodeEmptySpec, o.Kind, "spec sets none of "+list(r.fields))
			}
		}
	}
	return nil
}

func list(fs []string) string {
	out := ""
	for i, f := range fs {
		switch {
		case i == 0:
		case i == len(fs)-1:
			out += " or "
		default:
			out += ", "
		}
		out += "spec." + f
	}
	return out
}
