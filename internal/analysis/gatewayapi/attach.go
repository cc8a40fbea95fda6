package gatewayapi

import (
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// attachment is the outcome of evaluating one parentRef of a route.
type attachment struct {
	ref       parentRef
	gateway   *manifest.Object // nil unless the parent is a Gateway or ListenerSet that was found
	scope     analysis.Scope
	listeners []listener // listeners that accept the route
	code      string     // why no listener accepts it ("" when some does or it is not checkable)
	reason    string
}

// attach evaluates where ref attaches route, as a Gateway controller would.
func attach(c *analysis.Context, route *manifest.Object, ref parentRef) attachment {
	a := attachment{ref: ref}
	if !ref.isGateway() && !ref.isListenerSet() {
		if ref.group == "" && ref.kind == "Service" { // GAMMA: a mesh route on a Service
			_, a.scope = c.Resolve(ref.key())
			if a.scope == analysis.ScopeMissing {
				a.code, a.reason = analysis.CodeParentNotFound,
					fmt.Sprintf("parentRef names Service %s, which does not exist; fix the name or namespace, or add the Service", analysis.QualifiedName(ref.namespace, ref.name))
			}
		}
		return a
	}
	gw, scope := c.Resolve(ref.key())
	a.scope = scope
	if !scope.Found() {
		if scope == analysis.ScopeMissing {
			a.code, a.reason = analysis.CodeParentNotFound,
				fmt.Sprintf("parentRef names %s %s, which does not exist, so the route attaches nowhere; fix the name or namespace, or add the %s",
					ref.kind, analysis.QualifiedName(ref.namespace, ref.name), ref.kind)
		}
		return a
	}
	a.gateway = gw
	ls := listenersOf(gw)
	gwName := c.Namespace(gw) + "/" + gw.Name
	if ref.isListenerSet() {
		gwName = "ListenerSet " + gwName // the messages below say "of Gateway <name>"
	}

	cands := ls
	if ref.sectionName != "" {
		cands = filter(cands, func(l listener) bool { return l.name == ref.sectionName })
		if len(cands) == 0 {
			a.code, a.reason = analysis.CodeParentNoSection, fmt.Sprintf(
				"parentRef sectionName %q names no listener of %s (listeners: %s); use one of them",
				ref.sectionName, parentName(gwName), names(ls))
			return a
		}
	}
	if ref.hasPort {
		before := cands
		cands = filter(cands, func(l listener) bool { return l.port == ref.port })
		if len(cands) == 0 {
			a.code, a.reason = analysis.CodeParentNoPort, fmt.Sprintf(
				"parentRef port %d matches no listener of %s (%s); use a listener's port or drop the port",
				ref.port, parentName(gwName), describe(before))
			return a
		}
	}
	kind := route.Kind
	before := cands
	cands = filter(cands, func(l listener) bool { return contains(defaultKinds(l.protocol, l.tlsMode), kind) })
	if len(cands) == 0 {
		a.code, a.reason = analysis.CodeParentProtocol, fmt.Sprintf(
			"%s cannot attach to %s of %s: the protocol does not carry %ss; pick a listener with a fitting protocol",
			manifest.Article(kind), describe(before), parentName(gwName), kind)
		return a
	}
	before = cands
	cands = filter(cands, func(l listener) bool {
		if len(l.kinds) == 0 {
			return true
		}
		for _, k := range l.kinds {
			if k.group == Group && k.kind == kind {
				return true
			}
		}
		return false
	})
	if len(cands) == 0 {
		a.code, a.reason = analysis.CodeParentKind, fmt.Sprintf(
			"allowedRoutes.kinds of %s of %s do not include %s; add it there or use another listener",
			describe(before), parentName(gwName), kind)
		return a
	}
	before = cands
	routeNS := c.Namespace(route)
	cands = filter(cands, func(l listener) bool {
		ok, _ := namespaceAdmits(c, l, c.Namespace(gw), routeNS)
		return ok
	})
	if len(cands) == 0 {
		a.code, a.reason = analysis.CodeParentNamespace, fmt.Sprintf(
			"allowedRoutes.namespaces of %s of %s (from: %s) do not admit routes from namespace %q; widen allowedRoutes or move the route",
			describe(before), parentName(gwName), froms(before), routeNS)
		return a
	}
	if kind == "HTTPRoute" || kind == "GRPCRoute" || kind == "TLSRoute" {
		hosts := field.Strings(route.Body, "spec", "hostnames")
		before = cands
		cands = filter(cands, func(l listener) bool { return routeHostnamesMatch(hosts, l) })
		if len(cands) == 0 {
			a.code, a.reason = analysis.CodeParentHostname, fmt.Sprintf(
				"route hostnames [%s] do not intersect the hostname of %s of %s, so the route attaches nowhere there; align the hostnames",
				strings.Join(hosts, ", "), describe(before), parentName(gwName))
			return a
		}
	}
	a.listeners = cands
	return a
}

// parentName renders a parent for messages: "Gateway ns/name", or
// "ListenerSet ns/name" when name already says so.
func parentName(name string) string {
	if strings.HasPrefix(name, "ListenerSet ") {
		return name
	}
	return "Gateway " + name
}

func filter(ls []listener, keep func(listener) bool) []listener {
	var out []listener
	for _, l := range ls {
		if keep(l) {
			out = append(out, l)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func names(ls []listener) string {
	if len(ls) == 0 {
		return "none"
	}
	var out []string
	for _, l := range ls {
		out = append(out, l.name)
	}
	return strings.Join(out, ", ")
}

func describe(ls []listener) string {
	var out []string
	for _, l := range ls {
		s := l.String()
		if l.hostname != "" {
			s = fmt.Sprintf("listener %q (%s port %d, hostname %s)", l.name, l.protocol, l.port, l.hostname)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return "no listeners"
	}
	return strings.Join(out, ", ")
}

func froms(ls []listener) string {
	seen := map[string]bool{}
	var out []string
	for _, l := range ls {
		if !seen[l.from] {
			seen[l.from] = true
			out = append(out, l.from)
		}
	}
	return strings.Join(out, ", ")
}
