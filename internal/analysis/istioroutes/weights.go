package istioroutes

import (
	"context"
	"fmt"
	"strconv"
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
					c.ReportCode(vs, analysis.CodeVirtualServiceWeight, route[0].section, destName(route[0])+"="+strconv.FormatInt(route[0].weight, 10)+" (its only destination)", int(route[0].weight))
				}
				continue
			}
			var sum int64
			var parts []string
			for _, d := range route {
				sum += d.weight
				parts = append(parts, fmt.Sprintf("%s=%d", destName(d), d.weight))
			}
			if sum != 100 {
				c.ReportCode(vs, analysis.CodeVirtualServiceWeight, route[0].section, strings.Join(parts, ", "), int(sum))
			}
		}
	}
	return nil
}

// destName is a destination as the weights message shows it: host, or
// host/subset.
func destName(d destination) string {
	if d.subset != "" {
		return d.host + "/" + d.subset
	}
	return d.host
}
