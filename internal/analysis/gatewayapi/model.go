package gatewayapi

import (
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// routeKinds are the route kinds the analyzers check.
var routeKinds = []string{"GRPCRoute", "HTTPRoute", "TCPRoute", "TLSRoute", "UDPRoute"}

// routes returns every rendered route, in set order, kinds sorted.
func routes(c *analysis.Context) []*manifest.Object {
	var out []*manifest.Object
	for _, k := range routeKinds {
		out = append(out, c.Objects().ByKind(Group, k)...)
	}
	return out
}

func routeInputs() []manifest.GroupKind {
	out := make([]manifest.GroupKind, 0, len(routeKinds))
	for _, k := range routeKinds {
		out = append(out, manifest.GroupKind{Group: Group, Kind: k})
	}
	return out
}

// listener is one entry of a Gateway's spec.listeners.
type listener struct {
	index    int
	name     string
	hostname string
	port     int64
	protocol string
	tlsMode  string // Terminate (default) or Passthrough
	from     string // Same (default), All, Selector
	selector map[string]any
	kinds    []groupKind // allowedRoutes.kinds; empty: the protocol's defaults
	certRefs []map[string]any
	hasTLS   bool
	raw      map[string]any // the listener as written
}

type groupKind struct{ group, kind string }

func listenersOf(gw *manifest.Object) []listener {
	var out []listener
	for i, l := range field.Maps(gw.Body, "spec", "listeners") {
		port, _ := field.Int(l, "port")
		li := listener{index: i, name: field.String(l, "name"), hostname: field.String(l, "hostname"),
			port: port, protocol: field.String(l, "protocol"), tlsMode: field.String(l, "tls", "mode"),
			from:     field.String(l, "allowedRoutes", "namespaces", "from"),
			selector: field.Map(l, "allowedRoutes", "namespaces", "selector"),
			certRefs: field.Maps(l, "tls", "certificateRefs"), hasTLS: field.Has(l, "tls"), raw: l}
		if li.tlsMode == "" {
			li.tlsMode = "Terminate"
		}
		if li.from == "" {
			li.from = "Same"
		}
		for _, k := range field.Maps(l, "allowedRoutes", "kinds") {
			g, ok := k["group"].(string)
			if !ok {
				g = Group
			}
			li.kinds = append(li.kinds, groupKind{g, field.String(k, "kind")})
		}
		out = append(out, li)
	}
	return out
}

// defaultKinds are the route kinds a listener of a protocol carries.
func defaultKinds(protocol, tlsMode string) []string {
	switch protocol {
	case "HTTP", "HTTPS":
		return []string{"HTTPRoute", "GRPCRoute"}
	case "TLS":
		if tlsMode == "Passthrough" {
			return []string{"TLSRoute"}
		}
		return []string{"TLSRoute", "TCPRoute"}
	case "TCP":
		return []string{"TCPRoute"}
	case "UDP":
		return []string{"UDPRoute"}
	}
	return nil
}

func (l listener) String() string {
	return fmt.Sprintf("listener %q (%s port %d)", l.name, l.protocol, l.port)
}

// parentRef is one entry of a route's spec.parentRefs, defaults applied.
type parentRef struct {
	group, kind, namespace, name, sectionName string
	port                                      int64
	hasPort                                   bool
}

func parentRefsOf(c *analysis.Context, route *manifest.Object) []parentRef {
	var out []parentRef
	for _, p := range field.Maps(route.Body, "spec", "parentRefs") {
		r := parentRef{group: Group, kind: "Gateway", namespace: c.Namespace(route),
			name: field.String(p, "name"), sectionName: field.String(p, "sectionName")}
		if g, ok := p["group"].(string); ok {
			r.group = g
		}
		if k := field.String(p, "kind"); k != "" {
			r.kind = k
		}
		if ns := field.String(p, "namespace"); ns != "" {
			r.namespace = ns
		}
		r.port, r.hasPort = field.Int(p, "port")
		out = append(out, r)
	}
	return out
}

func (p parentRef) key() manifest.Key {
	return manifest.Key{Group: p.group, Kind: p.kind, Namespace: p.namespace, Name: p.name}
}

func (p parentRef) isGateway() bool { return p.group == Group && p.kind == "Gateway" }

func (p parentRef) isListenerSet() bool { return p.group == Group && p.kind == "ListenerSet" }

// hostnamesIntersect reports whether a route hostname and a listener
// hostname can both match some request host. "" matches anything; a
// leading "*." matches one or more labels.
func hostnamesIntersect(a, b string) bool {
	if a == "" || b == "" || a == b {
		return true
	}
	aw, bw := strings.HasPrefix(a, "*."), strings.HasPrefix(b, "*.")
	switch {
	case aw && bw:
		return strings.HasSuffix(a[1:], b[1:]) || strings.HasSuffix(b[1:], a[1:])
	case aw:
		return strings.HasSuffix(b, a[1:])
	case bw:
		return strings.HasSuffix(a, b[1:])
	}
	return false
}

// routeHostnamesMatch reports whether any route hostname intersects the
// listener's (a route without hostnames matches every listener).
func routeHostnamesMatch(hostnames []string, l listener) bool {
	if len(hostnames) == 0 || l.hostname == "" {
		return true
	}
	for _, h := range hostnames {
		if hostnamesIntersect(h, l.hostname) {
			return true
		}
	}
	return false
}

// grantAdmits reports whether a ReferenceGrant in toNS (rendered or context)
// lets fromKind objects in fromNS refer to toGroup/toKind named toName.
func grantAdmits(c *analysis.Context, fromKind, fromNS, toNS, toGroup, toKind, toName string) bool {
	byNS := c.Memo("gatewayapi.grants", func() any {
		m := map[string][]*manifest.Object{}
		for _, s := range []*manifest.Set{c.Objects(), c.ContextObjects()} {
			for _, g := range s.ByKind(Group, "ReferenceGrant") {
				m[c.Namespace(g)] = append(m[c.Namespace(g)], g)
			}
		}
		return m
	}).(map[string][]*manifest.Object)
	{
		for _, g := range byNS[toNS] {
			fromOK := false
			for _, f := range field.Maps(g.Body, "spec", "from") {
				if field.String(f, "group") == Group && field.String(f, "kind") == fromKind &&
					field.String(f, "namespace") == fromNS {
					fromOK = true
				}
			}
			if !fromOK {
				continue
			}
			for _, t := range field.Maps(g.Body, "spec", "to") {
				name := field.String(t, "name")
				if field.String(t, "group") == toGroup && field.String(t, "kind") == toKind &&
					(name == "" || name == toName) {
					return true
				}
			}
		}
	}
	return false
}

// grantState is what can be said of a cross-namespace reference's ReferenceGrant.
type grantState int

const (
	grantAdmitted grantState = iota // a rendered or context grant admits it
	grantMissing                    // no grant admits it, and one would be rendered if it existed
	grantUnknown                    // no grant found, and nothing says what the namespace holds
)

// checkGrant judges the ReferenceGrant a fromKind object in fromNS needs to
// refer to target. A missing grant is certain when the target object is
// rendered (or in context: its owner's grants would be there too), or when
// ReferenceGrants are Checkable in the target's namespace.
func checkGrant(c *analysis.Context, fromKind, fromNS string, target manifest.Key, targetFound bool) grantState {
	if grantAdmits(c, fromKind, fromNS, target.Namespace, target.Group, target.Kind, target.Name) {
		return grantAdmitted
	}
	if targetFound || c.Checkable(grantKey(target.Namespace)) {
		return grantMissing
	}
	return grantUnknown
}

func grantKey(ns string) manifest.Key {
	return manifest.Key{Group: Group, Kind: "ReferenceGrant", Namespace: ns}
}

// namespaceAdmits evaluates a listener's allowedRoutes.namespaces for a
// route in routeNS. known is false when a Selector cannot be evaluated
// because the Namespace object is not available.
func namespaceAdmits(c *analysis.Context, l listener, gwNS, routeNS string) (admits, known bool) {
	switch l.from {
	case "All":
		return true, true
	case "Selector":
		labels, ok := namespaceLabels(c, routeNS)
		if !ok {
			// Only the automatic name label is known.
			if sel, evaluable := selectorOnlyUsesName(l.selector); evaluable {
				return selectorMatches(sel, labels), true
			}
			return true, false
		}
		return selectorMatches(l.selector, labels), true
	}
	return gwNS == routeNS, true
}

// namespaceLabels returns a Namespace's labels plus the automatic
// kubernetes.io/metadata.name label; ok is false when the Namespace is not known.
func namespaceLabels(c *analysis.Context, ns string) (map[string]string, bool) {
	labels := map[string]string{"kubernetes.io/metadata.name": ns}
	o, scope := c.Resolve(manifest.Key{Kind: "Namespace", Name: ns})
	if !scope.Found() {
		return labels, false
	}
	for k, v := range o.Labels() {
		labels[k] = v
	}
	return labels, true
}

func selectorOnlyUsesName(sel map[string]any) (map[string]any, bool) {
	for k := range field.StringMap(sel, "matchLabels") {
		if k != "kubernetes.io/metadata.name" {
			return nil, false
		}
	}
	for _, e := range field.Maps(sel, "matchExpressions") {
		if field.String(e, "key") != "kubernetes.io/metadata.name" {
			return nil, false
		}
	}
	return sel, true
}

// selectorMatches evaluates a metav1.LabelSelector against labels.
func selectorMatches(sel map[string]any, labels map[string]string) bool {
	for k, v := range field.StringMap(sel, "matchLabels") {
		if labels[k] != v {
			return false
		}
	}
	for _, e := range field.Maps(sel, "matchExpressions") {
		key := field.String(e, "key")
		vals := field.Strings(e, "values")
		v, has := labels[key]
		in := false
		for _, x := range vals {
			if x == v {
				in = has
			}
		}
		switch field.String(e, "operator") {
		case "In":
			if !in {
				return false
			}
		case "NotIn":
			if in {
				return false
			}
		case "Exists":
			if !has {
				return false
			}
		case "DoesNotExist":
			if has {
				return false
			}
		}
	}
	return true
}
