package gatewayapi

import (
	"context"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Listeners checks each Gateway's listeners: unique names, no two on the
// same port + protocol + hostname, TLS termination with certificates, and
// cross-namespace certificates admitted by a ReferenceGrant.
type Listeners struct{}

// Metadata implements analysis.Analyzer.
func (Listeners) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name:        "gatewayapi.Listeners",
		Description: "Checks Gateway listeners for duplicate names, port+protocol+hostname collisions, TLS termination without certificateRefs, and cross-namespace certificateRefs without a ReferenceGrant.",
		Inputs: []manifest.GroupKind{
			{Group: Group, Kind: "Gateway"},
			{Group: Group, Kind: "ReferenceGrant"},
		},
	}
}

// Analyze implements analysis.Analyzer.
func (Listeners) Analyze(ctx context.Context, c *analysis.Context) error {
	for _, gw := range c.Objects().ByKind(Group, "Gateway") {
		if err := ctx.Err(); err != nil {
			return err
		}
		ls := listenersOf(gw)
		byName := map[string]listener{}
		type slot struct {
			port     int64
			protocol string
			hostname string
		}
		bySlot := map[slot]listener{}
		for _, l := range ls {
			if prev, dup := byName[l.name]; dup && l.name != "" {
				c.Reportf(gw, analysis.CodeListenerDuplicate,
					"listeners %d and %d are both named %q; listener names must be unique, rename one", prev.index+1, l.index+1, l.name)
			} else {
				byName[l.name] = l
			}
			s := slot{l.port, l.protocol, l.hostname}
			if prev, dup := bySlot[s]; dup {
				host := l.hostname
				if host == "" {
					host = "(any)"
				}
				c.Reportf(gw, analysis.CodeListenerConflict,
					"listeners %q and %q share port %d, protocol %s and hostname %s, so they conflict and one does not serve; give them distinct hostnames or ports",
					prev.name, l.name, l.port, l.protocol, host)
			} else {
				bySlot[s] = l
			}
			terminates := l.protocol == "HTTPS" || (l.protocol == "TLS" && l.tlsMode == "Terminate")
			if terminates && len(l.certRefs) == 0 {
				c.Reportf(gw, analysis.CodeListenerNoCert,
					"listener %q (%s, TLS mode %s) has no tls.certificateRefs, so it cannot terminate TLS; add a certificateRef to a Secret, or use mode Passthrough with a TLS listener",
					l.name, l.protocol, l.tlsMode)
			}
			checkCertRefs(c, gw, l)
		}
	}
	return nil
}

func checkCertRefs(c *analysis.Context, gw *manifest.Object, l listener) {
	gwNS := c.Namespace(gw)
	for _, ref := range l.certRefs {
		group, kind := field.String(ref, "group"), field.String(ref, "kind")
		if kind == "" {
			kind = "Secret"
		}
		ns := field.String(ref, "namespace")
		if ns == "" || ns == gwNS {
			continue
		}
		name := field.String(ref, "name")
		key := manifest.Key{Group: group, Kind: kind, Namespace: ns, Name: name}
		_, scope := c.Resolve(key)
		switch checkGrant(c, "Gateway", gwNS, key, scope.Found()) {
		case grantUnknown:
			why, fix := c.WhyUnchecked(grantKey(ns))
			c.Reportf(gw, analysis.CodeUnresolvedOutside,
				"listener %q refers to %s in another namespace; whether a ReferenceGrant there admits it cannot be checked: %s; %s",
				l.name, key, why, fix)
		case grantMissing:
			c.Reportf(gw, analysis.CodeCertificateNoGrant,
				"listener %q refers to %s %s in another namespace and no ReferenceGrant in %q admits Gateways from %q; add one (from: group %s, kind Gateway, namespace %s; to: kind %s)",
				l.name, kind, analysis.QualifiedName(ns, name), ns, gwNS, Group, gwNS, kind)
		}
	}
}
