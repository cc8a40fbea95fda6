package gatewayapi

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Listeners checks the listeners of each Gateway and ListenerSet: unique
// names, supported protocols and route kinds, TLS termination with
// certificates that exist and parse (and cross-namespace ones admitted by a
// ReferenceGrant), and no two listeners of a Gateway and its ListenerSets
// colliding.
type Listeners struct{}

// Metadata implements analysis.Analyzer.
func (Listeners) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name: "gatewayapi.Listeners",
		Description: "Checks Gateway and ListenerSet listeners for duplicate names, unsupported protocols and route kinds, " +
			"collisions (also across a Gateway and its ListenerSets), and TLS certificateRefs (kind, existence, contents, ReferenceGrant).",
		Doc: "Gateway and ListenerSet listeners: duplicate names; protocols that are neither Gateway API's, domain-prefixed, nor documented by an implementation (Istio's `HBONE`) (`RG1205`); `allowedRoutes.kinds` of the Gateway API group the protocol cannot carry (`RG1206`); HTTPS and TLS-Terminate listeners without `certificateRefs`; each certificateRef's kind, existence, contents and ReferenceGrant (see `GatewayTLS`); TLS options with un-prefixed keys; listeners that are not distinct across a Gateway and its attached ListenerSets (same port + protocol + hostname, or TCP on the port of an HTTP/HTTPS/TLS listener), taken in the spec's precedence (the Gateway's own, then ListenerSets oldest first), reporting the one that loses.",
		Inputs: append([]manifest.GroupKind{
			{Group: Group, Kind: "Gateway"}, {Group: Group, Kind: "ListenerSet"},
			{Group: Group, Kind: "ReferenceGrant"}, {Kind: "Secret"}, {Kind: "Namespace"}, crdInput,
		}, producerInputs()...),
	}
}

// Analyze implements analysis.Analyzer.
func (Listeners) Analyze(ctx context.Context, c *analysis.Context) error {
	for _, kind := range []string{"Gateway", "ListenerSet"} {
		for _, o := range c.Objects().ByKind(Group, kind) {
			if err := ctx.Err(); err != nil {
				return err
			}
			checkOwnListeners(c, o)
		}
	}
	// Collisions: a rendered Gateway's listeners with its ListenerSets', and
	// a context Gateway's with the rendered ListenerSets attached to it.
	for _, s := range []*manifest.Set{c.Objects(), c.ContextObjects()} {
		for _, gw := range s.ByKind(Group, "Gateway") {
			if err := ctx.Err(); err != nil {
				return err
			}
			checkCollisions(c, gw)
		}
	}
	return nil
}

// coreProtocols are Gateway API's protocols; extraProtocols are bare names
// an implementation documents (Istio's waypoints listen with HBONE).
var (
	coreProtocols  = []string{"HTTP", "HTTPS", "TLS", "TCP", "UDP"}
	extraProtocols = []string{"HBONE"}
)

// gkeCertMap is the Gateway annotation through which GKE's Gateways take
// their certificates (a Certificate Manager map) instead of certificateRefs.
const gkeCertMap = "networking.gke.io/certmap"

// checkOwnListeners checks the listeners o (a Gateway or ListenerSet)
// declares, one by one.
func checkOwnListeners(c *analysis.Context, o *manifest.Object) {
	byName := map[string]listener{}
	for _, l := range listenersOf(o) {
		if prev, dup := byName[l.name]; dup && l.name != "" {
			c.ReportCode(o, analysis.CodeListenerDuplicate, prev.index+1, l.index+1, l.name)
		} else {
			byName[l.name] = l
		}
		if !slices.Contains(coreProtocols, l.protocol) {
			if l.protocol != "" && !strings.Contains(l.protocol, "/") && !slices.Contains(extraProtocols, l.protocol) {
				c.ReportCode(o, analysis.CodeListenerProtocol, l.name, l.protocol, strings.Join(coreProtocols, ", "))
			}
			continue // kinds and TLS depend on the implementation
		}
		checkRouteKinds(c, o, l)
		terminates := l.protocol == "HTTPS" || (l.protocol == "TLS" && l.tlsMode == "Terminate")
		// The Gateway CRD accepts Terminate with certificateRefs or options:
		// implementations take certificates through options too (GKE's
		// networking.gke.io/pre-shared-certs), which routeguard cannot see.
		switch {
		case !terminates || len(l.certRefs) > 0 || len(field.Map(l.raw, "tls", "options")) > 0:
		case l.hasTLS:
			c.ReportCode(o, analysis.CodeListenerNoCert, l.name, l.protocol+", TLS mode "+l.tlsMode,
				"tls.certificateRefs (nor tls.options, through which an implementation takes its certificates)", "it cannot terminate TLS")
		case o.Annotations()[gkeCertMap] != "":
			// GKE's Gateways take their certificates from a Certificate Manager map.
		default:
			// The CRD accepts an HTTPS listener without tls (Gateway API
			// 1.6): some implementations serve a default certificate
			// (Kong), others mark the listener invalid (Istio, Envoy Gateway).
			c.Report(analysis.Finding{Code: analysis.CodeListenerNoCert, Severity: analysis.SeverityWarning, Object: c.Ref(o), Source: o.Source}.Fill(l.name, l.protocol, "tls",
				"served only where the implementation has a certificate of its own (Kong's default certificate, GKE's "+gkeCertMap+" annotation)"))
		}
		where := fmt.Sprintf("listener %q certificateRef", l.name)
		for _, ref := range l.certRefs {
			checkTLSRef(c, o, where, refKindCertificate, ref, true)
		}
		checkTLSOptions(c, o, fmt.Sprintf("listener %q", l.name), field.Map(l.raw, "tls", "options"))
	}
}

// checkRouteKinds reports allowedRoutes.kinds of the Gateway API group that
// the listener's protocol cannot carry.
func checkRouteKinds(c *analysis.Context, o *manifest.Object, l listener) {
	carried := defaultKinds(l.protocol, l.tlsMode)
	for _, k := range l.kinds {
		if k.group != Group || slices.Contains(carried, k.kind) {
			continue // other groups: implementation-specific route kinds
		}
		c.ReportCode(o, analysis.CodeListenerRouteKinds, l.name, l.protocol, k.kind, strings.Join(carried, ", "))
	}
}

// owned is a listener with the object that declares it.
type owned struct {
	listener
	owner *manifest.Object
}

// checkCollisions finds listeners of gw and its attached ListenerSets that
// are not distinct: same port, protocol and hostname, or a TCP listener on
// the port of an HTTP, HTTPS or TLS listener. Listeners are taken in the
// spec's precedence (the Gateway's, then each ListenerSet's, oldest
// first); one that collides with a listener accepted before it is
// reported, and is not accepted itself, so it takes no later listener down.
func checkCollisions(c *analysis.Context, gw *manifest.Object) {
	var all []owned
	for _, l := range listenersOf(gw) {
		all = append(all, owned{l, gw})
	}
	for _, ls := range attachedListenerSets(c, gw) {
		for _, l := range listenersOf(ls) {
			all = append(all, owned{l, ls})
		}
	}
	gwName := analysis.QualifiedName(c.Namespace(gw), gw.Name)
	var accepted []owned
	for _, b := range all {
		conflicted := false
		for _, a := range accepted {
			what := collision(a.listener, b.listener)
			if what == "" {
				continue
			}
			conflicted = true
			if a.owner == b.owner {
				c.ReportCode(b.owner, analysis.CodeListenerConflict, b.name, what, a.name, "of this Gateway", "they conflict and neither serves")
			} else {
				c.ReportCode(b.owner, analysis.CodeListenerConflict, b.name, what, a.name,
					"of "+ownerName(c, a.owner)+", which takes precedence in Gateway "+gwName, "this one is not accepted (Conflicted)")
			}
			break // one finding per listener
		}
		if !conflicted {
			accepted = append(accepted, b)
		}
	}
}

// collision says what two listeners that are not distinct share, or "".
func collision(a, b listener) string {
	if a.port != b.port {
		return ""
	}
	if a.protocol == b.protocol && a.hostname == b.hostname {
		if a.protocol == "TCP" || a.protocol == "UDP" {
			return fmt.Sprintf("port %d with protocol %s", a.port, a.protocol)
		}
		host := a.hostname
		if host == "" {
			host = "(any)"
		}
		return fmt.Sprintf("port %d, protocol %s and hostname %s", a.port, a.protocol, host)
	}
	tcp := func(x, y listener) bool {
		return x.protocol == "TCP" && (y.protocol == "HTTP" || y.protocol == "HTTPS" || y.protocol == "TLS")
	}
	if tcp(a, b) || tcp(b, a) {
		return fmt.Sprintf("port %d, one with protocol %s and the other %s (a TCP listener takes the whole port)", a.port, a.protocol, b.protocol)
	}
	return ""
}

func ownerName(c *analysis.Context, o *manifest.Object) string {
	return o.Kind + " " + analysis.QualifiedName(c.Namespace(o), o.Name)
}
