package gatewayapi

import (
	"context"
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// BackendRefs checks every route's backendRefs: the Service exists and has
// the port, a cross-namespace reference is admitted by a ReferenceGrant, and
// a rule does not weigh all its backends 0.
type BackendRefs struct{}

// Metadata implements analysis.Analyzer.
func (BackendRefs) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name:        "gatewayapi.BackendRefs",
		Description: "Checks that route backendRefs name existing Services and ports, cross-namespace references have a ReferenceGrant, and rules do not weigh every backend 0.",
		Doc:         "Service backends (RequestMirror backends too) exist and have the port; a cross-namespace backend has a ReferenceGrant in its namespace admitting the route's kind and namespace; a rule whose backends all weigh 0 sends no traffic. Other backend kinds: a core kind other than Service is `RG0005`; a kind of another group that routeguard does not know (ServiceImport, InferencePool, Envoy Gateway's and kgateway's Backend, agentgateway's AgentgatewayBackend, Istio's Hostname, TraefikService, ... are known) and that no rendered CRD defines is `RG0006`. Messages say what clients get: HTTP 500 (HTTPRoute), gRPC UNAVAILABLE (GRPCRoute), rejected connections (TCPRoute, TLSRoute), dropped packets (UDPRoute).",
		Inputs: append(routeInputs(),
			manifest.GroupKind{Kind: "Service"},
			manifest.GroupKind{Group: Group, Kind: "ReferenceGrant"}, crdInput),
	}
}

// Analyze implements analysis.Analyzer.
func (BackendRefs) Analyze(ctx context.Context, c *analysis.Context) error {
	for _, r := range routes(c) {
		if err := ctx.Err(); err != nil {
			return err
		}
		for i, rule := range field.Maps(r.Body, "spec", "rules") {
			refs := field.Maps(rule, "backendRefs")
			zero := len(refs) > 0
			for _, b := range refs {
				if w, ok := field.Int(b, "weight"); !ok || w != 0 {
					zero = false
				}
				checkBackend(c, r, b)
				for _, m := range mirrors(b) {
					checkBackend(c, r, m)
				}
			}
			for _, m := range mirrors(rule) {
				checkBackend(c, r, m)
			}
			if zero {
				c.ReportCode(r, analysis.CodeBackendZeroWeight, i+1, strings.Replace(failure(r.Kind), "routed to it", "matching it", 1))
			}
		}
	}
	return nil
}

// failure says what a client of a route of kind gets when a backend is
// invalid, as the Gateway API spec requires of implementations.
func failure(kind string) string {
	switch kind {
	case "HTTPRoute":
		return "requests routed to it get HTTP 500"
	case "GRPCRoute":
		return "calls routed to it get gRPC status UNAVAILABLE"
	case "UDPRoute":
		return "packets routed to it are dropped"
	}
	return "connections routed to it are rejected" // TCPRoute, TLSRoute
}

func checkBackend(c *analysis.Context, r *manifest.Object, b map[string]any) {
	group, kind := field.String(b, "group"), field.String(b, "kind")
	if kind == "" {
		kind = "Service"
	}
	name := field.String(b, "name")
	if name == "" {
		return // reported by the schema analyzer
	}
	routeNS := c.Namespace(r)
	ns := field.String(b, "namespace")
	if ns == "" {
		ns = routeNS
	}
	if group == "core" && kind == "Service" {
		// Kong's controller reads "core" as the core group; the spec's core
		// group is "", and other implementations reject it. The Service is
		// still checked.
		c.ReportCode(r, analysis.CodeRefKindUnknown, "backendRef", "core/Service", analysis.QualifiedName(ns, name),
			`the core group is "", not "core" (Kong accepts "core", other implementations do not)`, failure(r.Kind))
		group = ""
	}
	if group != "" || kind != "Service" {
		checkRefKind(c, r, "backendRef", refKindBackend, manifest.Key{Group: group, Kind: kind, Namespace: ns, Name: name}, failure(r.Kind))
		return // other backend kinds (ServiceImport, implementation-specific) are not resolved
	}
	key := manifest.Key{Kind: "Service", Namespace: ns, Name: name}
	port, hasPort := field.Int(b, "port")
	if !hasPort {
		c.ReportCode(r, analysis.CodeBackendPortMissing, analysis.QualifiedName(ns, name))
	}
	svc, scope := c.Resolve(key)
	switch scope {
	case analysis.ScopeOutside:
		c.ReportOutside(r, "backendRef", key)
		return
	case analysis.ScopeMissing:
		c.ReportCode(r, analysis.CodeBackendNotFound, analysis.QualifiedName(ns, name), failure(r.Kind))
		return
	}
	// The Service is found, so its owner is rendered: a grant admitting the
	// route would be rendered with it.
	if ns != routeNS && checkGrant(c, r.Kind, routeNS, key, true) == grantMissing {
		c.ReportCode(r, analysis.CodeBackendNoGrant, analysis.QualifiedName(ns, name), ns, r.Kind, routeNS, failure(r.Kind))
	}
	// An ExternalName Service is reached at its host on the backendRef's
	// port as written (where the implementation supports them at all).
	if hasPort && !servicePorts(svc)[port] && field.String(svc.Body, "spec", "type") != "ExternalName" {
		c.ReportCode(r, analysis.CodeBackendNoPort, int(port), analysis.QualifiedName(ns, name), portList(svc), failure(r.Kind))
	}
}

func servicePorts(svc *manifest.Object) map[int64]bool {
	out := map[int64]bool{}
	for _, p := range field.Maps(svc.Body, "spec", "ports") {
		if n, ok := field.Int(p, "port"); ok {
			out[n] = true
		}
	}
	return out
}

func portList(svc *manifest.Object) string {
	s := ""
	for _, p := range field.Maps(svc.Body, "spec", "ports") {
		n, _ := field.Int(p, "port")
		if s != "" {
			s += ", "
		}
		s += fmt.Sprint(n)
		if name := field.String(p, "name"); name != "" {
			s += " (" + name + ")"
		}
	}
	if s == "" {
		return "none"
	}
	return s
}

// mirrors returns the backendRefs of the RequestMirror filters of a rule or
// of a backendRef.
func mirrors(m map[string]any) []map[string]any {
	var out []map[string]any
	for _, f := range field.Maps(m, "filters") {
		if b := field.Map(f, "requestMirror", "backendRef"); b != nil {
			out = append(out, b)
		}
	}
	return out
}
