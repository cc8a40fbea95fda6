package gatewayapi

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// RouteConflicts finds routes attached to the same listener that claim the
// same hostname and the same match: only the one that wins precedence (the
// oldest, then the first by namespace/name) ever receives that traffic.
type RouteConflicts struct{}

// Metadata implements analysis.Analyzer.
func (RouteConflicts) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name:        "gatewayapi.RouteConflicts",
		Description: "Finds routes on the same listener claiming the same hostname and match, where the one losing precedence never receives traffic.",
		Doc:         "Two routes attached to the same listener claiming the same hostname and the same match (path, method, headers, query; GRPC service/method; TLS SNI): the one losing precedence (older `creationTimestamp`, then first by namespace/name) never gets that traffic; reported on the loser.",
		Inputs: []manifest.GroupKind{
			{Group: Group, Kind: "HTTPRoute"}, {Group: Group, Kind: "GRPCRoute"}, {Group: Group, Kind: "TLSRoute"},
			{Group: Group, Kind: "Gateway"}, {Group: Group, Kind: "ListenerSet"}, {Kind: "Namespace"},
		},
	}
}

type claim struct {
	listener string // "ns/gateway listener"
	kind     string
	hostname string
	match    string
}

// Analyze implements analysis.Analyzer.
func (RouteConflicts) Analyze(ctx context.Context, c *analysis.Context) error {
	claims := map[claim][]*manifest.Object{}
	var order []claim
	for _, kind := range []string{"GRPCRoute", "HTTPRoute", "TLSRoute"} {
		for _, r := range c.Objects().ByKind(Group, kind) {
			if err := ctx.Err(); err != nil {
				return err
			}
			mine := map[claim]bool{}
			for _, ref := range parentRefsOf(c, r) {
				a := attach(c, r, ref)
				for _, l := range a.listeners {
					lname := fmt.Sprintf("listener %q of %s %s/%s", l.name, a.gateway.Kind, c.Namespace(a.gateway), a.gateway.Name)
					for _, h := range effectiveHostnames(r, l) {
						for _, m := range matchSignatures(r) {
							cl := claim{lname, kind, h, m}
							if mine[cl] {
								continue
							}
							mine[cl] = true
							if _, ok := claims[cl]; !ok {
								order = append(order, cl)
							}
							claims[cl] = append(claims[cl], r)
						}
					}
				}
			}
		}
	}
	for _, cl := range order {
		rs := claims[cl]
		if len(rs) < 2 {
			continue
		}
		sort.SliceStable(rs, func(i, j int) bool { return precedes(c, rs[i], rs[j]) })
		winner := rs[0]
		for _, loser := range rs[1:] {
			c.ReportCode(loser, analysis.CodeRouteConflict, cl.hostname, cl.match, cl.listener, c.Ref(winner).String())
		}
	}
	return nil
}

// precedes reports whether a wins over b: older creationTimestamp, then
// alphabetical namespace/name.
func precedes(c *analysis.Context, a, b *manifest.Object) bool {
	ta := field.String(a.Body, "metadata", "creationTimestamp")
	tb := field.String(b.Body, "metadata", "creationTimestamp")
	if ta != tb && ta != "" && tb != "" {
		return ta < tb
	}
	return c.Namespace(a)+"/"+a.Name < c.Namespace(b)+"/"+b.Name
}

// effectiveHostnames returns the hostnames the route serves on listener l.
func effectiveHostnames(r *manifest.Object, l listener) []string {
	hosts := field.Strings(r.Body, "spec", "hostnames")
	if len(hosts) == 0 {
		if l.hostname == "" {
			return []string{"*"}
		}
		return []string{l.hostname}
	}
	var out []string
	for _, h := range hosts {
		if hostnamesIntersect(h, l.hostname) {
			out = append(out, h)
		}
	}
	return out
}

// matchSignatures returns a canonical string per match of the route's rules.
func matchSignatures(r *manifest.Object) []string {
	if r.Kind == "TLSRoute" {
		return []string{"(any)"}
	}
	var out []string
	for _, rule := range field.Maps(r.Body, "spec", "rules") {
		matches := field.Maps(rule, "matches")
		if len(matches) == 0 {
			matches = []map[string]any{{}}
		}
		for _, m := range matches {
			out = append(out, signature(r.Kind, m))
		}
	}
	return out
}

func signature(kind string, m map[string]any) string {
	var parts []string
	if kind == "HTTPRoute" {
		typ, val := field.String(m, "path", "type"), field.String(m, "path", "value")
		if typ == "" {
			typ = "PathPrefix"
		}
		if val == "" {
			val = "/"
		}
		parts = append(parts, typ+" "+val)
		if meth := field.String(m, "method"); meth != "" {
			parts = append(parts, "method "+meth)
		}
		parts = append(parts, pairs("query", field.Maps(m, "queryParams"))...)
	} else { // GRPCRoute
		svc, meth := field.String(m, "method", "service"), field.String(m, "method", "method")
		if svc == "" {
			svc = "*"
		}
		if meth == "" {
			meth = "*"
		}
		parts = append(parts, svc+"/"+meth)
	}
	parts = append(parts, pairs("header", field.Maps(m, "headers"))...)
	return strings.Join(parts, ", ")
}

func pairs(what string, ms []map[string]any) []string {
	var out []string
	for _, h := range ms {
		typ := field.String(h, "type")
		if typ == "" {
			typ = "Exact"
		}
		out = append(out, fmt.Sprintf("%s %s %s=%s", what, typ, strings.ToLower(field.String(h, "name")), field.String(h, "value")))
	}
	slices.Sort(out)
	return out
}
