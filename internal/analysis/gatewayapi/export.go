package gatewayapi

import (
	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Attachment is where one parentRef of a route attaches, evaluated as the
// analyzers evaluate it (the route map of internal/routemap shares it, so
// the map and the findings cannot disagree).
type Attachment struct {
	// The parentRef, defaults applied.
	Group, Kind, Namespace, Name, SectionName string
	Port                                      int64
	// Parent is the Gateway or ListenerSet found (nil otherwise).
	Parent *manifest.Object
	// Found: the parent is rendered or in context. When false and Code is
	// empty, nothing says whether it exists (it is not routeguard's to see).
	Found bool
	// Listeners are the listeners that accept the route.
	Listeners []Listener
	// Code and Reason say why no listener accepts it ("" when some does or
	// when it cannot be checked).
	Code, Reason string
}

// Listener is one listener of a Gateway or ListenerSet.
type Listener struct {
	Name, Hostname, Protocol, TLSMode string
	Port                              int64
	// Certificates are the listener's tls.certificateRefs as "Kind ns/name"
	// (Secret and the parent's namespace by default).
	Certificates []string
}

// Attachments evaluates every parentRef of route.
func Attachments(c *analysis.Context, route *manifest.Object) []Attachment {
	var out []Attachment
	for _, ref := range parentRefsOf(c, route) {
		a := attach(c, route, ref)
		e := Attachment{Group: ref.group, Kind: ref.kind, Namespace: ref.namespace, Name: ref.name,
			SectionName: ref.sectionName, Port: ref.port, Parent: a.gateway, Found: a.scope.Found(),
			Code: a.code, Reason: a.reason}
		for _, l := range a.listeners {
			e.Listeners = append(e.Listeners, exportListener(c, a.gateway, l))
		}
		out = append(out, e)
	}
	return out
}

// ListenersOf returns the listeners of a Gateway or ListenerSet, in order.
func ListenersOf(c *analysis.Context, gw *manifest.Object) []Listener {
	var out []Listener
	for _, l := range listenersOf(gw) {
		out = append(out, exportListener(c, gw, l))
	}
	return out
}

func exportListener(c *analysis.Context, gw *manifest.Object, l listener) Listener {
	e := Listener{Name: l.name, Hostname: l.hostname, Protocol: l.protocol, Port: l.port}
	if l.hasTLS {
		e.TLSMode = l.tlsMode
	}
	for _, ref := range l.certRefs {
		kind, ns := field.String(ref, "kind"), field.String(ref, "namespace")
		if kind == "" {
			kind = "Secret"
		}
		if ns == "" && gw != nil {
			ns = c.Namespace(gw)
		}
		e.Certificates = append(e.Certificates, kind+" "+ns+"/"+field.String(ref, "name"))
	}
	return e
}
