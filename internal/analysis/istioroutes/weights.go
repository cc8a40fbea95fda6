package istioroutes

import (
	"context"
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Weights checks that a VirtualService route splitting traffic between
// several destinations gives them weights adding up to 100.
type Weights struct{}

// Metadata implements analysis.Analyzer.
func (Weights) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name:        "istioroutes.Weights",
		Description: "Checks that the weights of a VirtualService route's destinations add up to 100.",
		Doc:         "A route's destination weights not adding up to 100 (Istio scales them, so the split is not what it reads as).",
		Inputs:      []manifest.GroupKind{{Group: Group, Kind: "VirtualService"}},
	}
}

// Analyze implements analysis.Analyzer.
func (Weights) Analyze(ctx context.Context, c *analysis.Context) error {
	for _, vs := range c.Objects().ByKind(Group, "VirtualService") {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, route := range routesOf(vs) {
			if len(route) < 2 {
				if len(route) == 1 && route[0].hasW && route[0].weight != 100 && route[0].weight != 0 {
					c.Reportf(vs, analysis.CodeVirtualServiceWeight,
						"%s has one destination with weight %d; it receives all traffic anyway; set weight 100 or drop it",
						route[0].section, route[0].weight)
				}
				continue
			}
			var sum int64
			var parts []string
			for _, d := range route {
				sum += d.weight
				name := d.host
				if d.subset != "" {
					name += "/" + d.subset
				}
				parts = append(parts, fmt.Sprintf("%s=%d", name, d.weight))
			}
			if sum != 100 {
				c.Reportf(vs, analysis.CodeVirtualServiceWeight,
					"%s splits traffic %s, which adds up to %d, not 100; Istio scales the weights, so the split is not what it reads as; make them add up to 100",
					route[0].section, strings.Join(parts, ", "), sum)
			}
		}
	}
	return nil
}
