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
	args      []any      // code's message arguments
	reason    string     // code's message
}

// fail records why the route does not attach: code and its message's
// arguments.
func (a *attachment) fail(code string, args ...any) {
	a.code, a.args, a.reason = code, args, analysis.Message(code, args...)
}

// attach evaluates where ref attaches route, as a Gateway controller would.
func attach(c *analysis.Context, route *manifest.Object, ref parentRef) attachment {
	a := attachment{ref: ref}
	if !ref.isGateway() && !ref.isListenerSet() {
		if ref.group == "" && ref.kind == "Service" { // GAMMA: a mesh route on a Service
			_, a.scope = c.Resolve(ref.key())
			if a.scope == analysis.ScopeMissing {
				a.fail(analysis.CodeParentNotFound, "Service", analysis.QualifiedName(ref.namespace, ref.name))
			}
		}
		return a
	}
	gw, scope := c.Resolve(ref.key())
	a.scope = scope
	if !scope.Found() {
		if scope == analysis.ScopeMissing {
			a.fail(analysis.CodeParentNotFound, ref.kind, analysis.QualifiedName(ref.namespace, ref.name))
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
			a.fail(analysis.CodeParentNoSection, ref.sectionName, parentName(gwName), names(ls))
			return a
		}
	}
	if ref.hasPort {
		before := cands
		cands = filter(cands, func(l listener) bool { return l.port == ref.port })
		if len(cands) == 0 {
			a.fail(analysis.CodeParentNoPort, int(ref.port), parentName(gwName), describe(before))
			return a
		}
	}
	kind := route.Kind
	before := cands
	cands = filter(cands, func(l listener) bool { return contains(defaultKinds(l.protocol, l.tlsMode), kind) })
	if len(cands) == 0 {
		a.fail(analysis.CodeParentProtocol, manifest.Article(kind), describe(before), parentName(gwName), kind)
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
		a.fail(analysis.CodeParentKind, describe(before), parentName(gwName), kind)
		return a
	}
	before = cands
	routeNS := c.Namespace(route)
	cands = filter(cands, func(l listener) bool {
		ok, _ := namespaceAdmits(c, l, c.Namespace(gw), routeNS)
		return ok
	})
	if len(cands) == 0 {
		a.fail(analysis.CodeParentNamespace, describe(before), parentName(gwName), froms(before), routeNS)
		return a
	}
	if kind == "HTTPRoute" || kind == "GRPCRoute" || kind == "TLSRoute" {
		hosts := field.Strings(route.Body, "spec", "hostnames")
		before = cands
		cands = filter(cands, func(l listener) bool { return routeHostnamesMatch(hosts, l) })
		if len(cands) == 0 {
			a.fail(analysis.CodeParentHostname, strings.Join(hosts, ", "), describe(before), parentName(gwName))
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
