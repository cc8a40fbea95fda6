package istioroutes

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Subsets checks that every subset a VirtualService routes to is defined
// by a DestinationRule for the destination's host (rendered, or among the
// context objects).
type Subsets struct{}

// Metadata implements analysis.Analyzer.
func (Subsets) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name:        "istioroutes.Subsets",
		Description: "Checks that VirtualService route destinations name subsets some DestinationRule for the host defines.",
		Doc:         "VirtualService destinations (http, tcp, tls, and http mirror / mirrors) naming a subset that no DestinationRule for the host defines (short hosts resolve in the VirtualService's namespace; wildcard DestinationRule hosts count). Where no DestinationRule for the host is rendered, that is dangling only if the app renders DestinationRules (or the Namespace) in the VirtualService's or the host's namespace.",
		Inputs: []manifest.GroupKind{
			{Group: Group, Kind: "VirtualService"}, {Group: Group, Kind: "DestinationRule"},
		},
	}
}

type ruleSubsets struct {
	host    string // FQDN or "*.suffix"
	subsets []string
}

// Analyze implements analysis.Analyzer.
func (Subsets) Analyze(ctx context.Context, c *analysis.Context) error {
	exact := map[string][]ruleSubsets{} // by FQDN
	var wildcards []ruleSubsets
	for _, s := range []*manifest.Set{c.Objects(), c.ContextObjects()} {
		for _, dr := range s.ByKind(Group, "DestinationRule") {
			rs := ruleSubsets{host: fqdn(field.String(dr.Body, "spec", "host"), c.Namespace(dr))}
			for _, sub := range field.Maps(dr.Body, "spec", "subsets") {
				rs.subsets = append(rs.subsets, field.String(sub, "name"))
			}
			if strings.HasPrefix(rs.host, "*") {
				wildcards = append(wildcards, rs)
			} else {
				exact[rs.host] = append(exact[rs.host], rs)
			}
		}
	}
	for _, vs := range c.Objects().ByKind(Group, "VirtualService") {
		if err := ctx.Err(); err != nil {
			return err
		}
		ns := c.Namespace(vs)
		dests := mirrorsOf(vs)
		for _, route := range routesOf(vs) {
			dests = append(dests, route...)
		}
		for _, d := range dests {
			if d.subset == "" || d.host == "" {
				continue
			}
			fq := fqdn(d.host, ns)
			var defined []string
			found := false
			for _, r := range append(exact[fq], wildcards...) {
				if hostMatches(r.host, fq) {
					found = true
					defined = append(defined, r.subsets...)
				}
			}
			if slices.Contains(defined, d.subset) {
				continue
			}
			if !found {
				if k, ok := uncheckedRule(c, ns, fq); ok {
					why, fix := c.WhyUnchecked(k)
					c.ReportCode(vs, analysis.CodeUnresolvedOutside, d.section, fmt.Sprintf("subset %q of host %s (no DestinationRule for the host is rendered)", d.subset, fq), why, fix)
					continue
				}
				c.ReportCode(vs, analysis.CodeVirtualServiceSubset, d.section, d.subset, fq, "but no DestinationRule for that host exists")
				continue
			}
			slices.Sort(defined)
			c.ReportCode(vs, analysis.CodeVirtualServiceSubset, d.section, d.subset, fq,
				"which no DestinationRule for that host defines (subsets: "+strings.Join(slices.Compact(defined), ", ")+")")
		}
	}
	return nil
}

// uncheckedRule reports whether the absence of any DestinationRule for
// host fq cannot be judged: the rule would live in the VirtualService's
// namespace or the host's, and the app (or a context path) renders
// DestinationRules, or the Namespace, in neither. It returns the key whose
// absence cannot be judged, for the RG0001 message.
func uncheckedRule(c *analysis.Context, vsNS, fq string) (manifest.Key, bool) {
	nss := []string{vsNS}
	if svcNS := serviceNamespace(fq); svcNS != "" && svcNS != vsNS {
		nss = append(nss, svcNS)
	}
	for _, ns := range nss {
		if c.Checkable(manifest.Key{Group: Group, Kind: "DestinationRule", Namespace: ns}) {
			return manifest.Key{}, false
		}
	}
	return manifest.Key{Group: Group, Kind: "DestinationRule", Namespace: nss[len(nss)-1]}, true
}
