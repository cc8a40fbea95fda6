package gatewayapi

import (
	"context"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// ParentRefs checks that every route attaches where its parentRefs say:
// the Gateway exists, sectionName and port select listeners, and a
// listener's protocol, allowedRoutes and hostname admit the route.
type ParentRefs struct{}

// Metadata implements analysis.Analyzer.
func (ParentRefs) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name:        "gatewayapi.ParentRefs",
		Description: "Checks that routes attach to existing Gateways and ListenerSets whose listeners (section, port, protocol, allowedRoutes, hostname) admit them.",
		Doc:         "HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute attach: the Gateway (or, with `kind: ListenerSet`, the ListenerSet) exists; `sectionName` names one of that parent's own listeners (a Gateway's sectionName never names its ListenerSets' listeners) and `port` matches one; the listener's protocol carries the route kind; `allowedRoutes.namespaces` (Same / All / Selector, using the Namespace's labels when it is known, and the automatic `kubernetes.io/metadata.name` label always) and `allowedRoutes.kinds` admit the route; route hostnames intersect the listener hostname (`*.example.com` matches one or more labels). A route without parentRefs attaches nowhere. GAMMA parentRefs to a Service check that the Service exists.",
		Inputs: append(routeInputs(),
			manifest.GroupKind{Group: Group, Kind: "Gateway"},
			manifest.GroupKind{Group: Group, Kind: "ListenerSet"},
			manifest.GroupKind{Kind: "Namespace"},
			manifest.GroupKind{Kind: "Service"}),
	}
}

// Analyze implements analysis.Analyzer.
func (ParentRefs) Analyze(ctx context.Context, c *analysis.Context) error {
	for _, r := range routes(c) {
		if err := ctx.Err(); err != nil {
			return err
		}
		refs := parentRefsOf(c, r)
		if _, isList := field.Get(r.Body, "spec", "parentRefs").([]any); !isList && field.Has(r.Body, "spec", "parentRefs") {
			continue // malformed: the API server validation (validation.CustomResources) reports it
		}
		if len(refs) == 0 && field.String(r.Body, "spec", "useDefaultGateways") == "All" {
			// GEP-3793 (experimental): it attaches to every Gateway with
			// spec.defaultScope All, usually the platform's, elsewhere.
			if !rendersDefaultGateway(c) {
				c.ReportCode(r, analysis.CodeUnresolvedOutside, "spec.useDefaultGateways: All", "the cluster's default Gateways",
					"this app renders no Gateway with spec.defaultScope: All", "where the "+r.Kind+" attaches is the cluster's")
			}
			continue
		}
		if len(refs) == 0 {
			c.ReportCode(r, analysis.CodeRouteNoParents, r.Kind)
			continue
		}
		for _, ref := range refs {
			a := attach(c, r, ref)
			switch {
			case a.scope == analysis.ScopeOutside:
				c.ReportOutside(r, "parentRef", ref.key())
			case a.code != "":
				c.ReportCode(r, a.code, a.args...)
			}
		}
	}
	return nil
}

// rendersDefaultGateway reports whether a rendered Gateway is a default
// Gateway (spec.defaultScope: All), which routes with useDefaultGateways
// attach to.
func rendersDefaultGateway(c *analysis.Context) bool {
	for _, g := range c.Objects().ByKind(Group, "Gateway") {
		if field.String(g.Body, "spec", "defaultScope") == "All" {
			return true
		}
	}
	return false
}
