package gatewayapi

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/internal/tlsdata"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// GatewayTLS checks a Gateway's spec.tls: the CA certificates of frontend
// client certificate validation (default and per port) and the client
// certificate the Gateway presents to backends.
type GatewayTLS struct{}

// Metadata implements analysis.Analyzer.
func (GatewayTLS) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name: "gatewayapi.GatewayTLS",
		Description: "Checks a Gateway's spec.tls: frontend validation CA references and the backend client certificate " +
			"(kind, existence, contents, ReferenceGrant), and per-port settings for ports no HTTPS listener uses.",
		Doc: "A Gateway's `spec.tls`: frontend client-certificate validation CA references (default and per port) and the backend client certificate: kind (`RG0005`/`RG0006`), ReferenceGrant for another namespace (`RG1204`), existence (`RG1401`, warning), contents (`RG1402`: no `tls.crt`/`tls.key`, not PEM, a certificate that does not parse; `ca.crt` likewise); per-port settings for a port no HTTPS listener uses (`RG1404`).",
		Inputs: append([]manifest.GroupKind{
			{Group: Group, Kind: "Gateway"}, {Group: Group, Kind: "ReferenceGrant"},
			{Kind: "Secret"}, {Kind: "ConfigMap"}, {Kind: "Namespace"}, crdInput,
		}, producerInputs()...),
	}
}

// Analyze implements analysis.Analyzer.
func (GatewayTLS) Analyze(ctx context.Context, c *analysis.Context) error {
	for _, gw := range c.Objects().ByKind(Group, "Gateway") {
		if err := ctx.Err(); err != nil {
			return err
		}
		tls := field.Map(gw.Body, "spec", "tls")
		if tls == nil {
			continue
		}
		for _, ref := range field.Maps(tls, "frontend", "default", "validation", "caCertificateRefs") {
			checkTLSRef(c, gw, "tls.frontend.default validation caCertificateRef", refKindCA, ref, true)
		}
		https := map[int64]bool{}
		for _, l := range listenersOf(gw) {
			if l.protocol == "HTTPS" {
				https[l.port] = true
			}
		}
		for _, pp := range field.Maps(tls, "frontend", "perPort") {
			port, _ := field.Int(pp, "port")
			where := fmt.Sprintf("tls.frontend.perPort port %d validation caCertificateRef", port)
			for _, ref := range field.Maps(pp, "tls", "validation", "caCertificateRefs") {
				checkTLSRef(c, gw, where, refKindCA, ref, true)
			}
			if !https[port] {
				c.ReportCode(gw, analysis.CodeTLSSettings, "tls.frontend.perPort", fmt.Sprintf("client certificate validation for port %d", port), "no HTTPS listener of this Gateway uses")
			}
		}
		if ref := field.Map(tls, "backend", "clientCertificateRef"); ref != nil {
			checkTLSRef(c, gw, "tls.backend clientCertificateRef", refKindCertificate, ref, true)
		}
	}
	return nil
}

// checkTLSRef checks one reference to a certificate Secret or CA bundle
// made by o (a Gateway, ListenerSet or BackendTLSPolicy): its kind, the
// ReferenceGrant a cross-namespace reference needs (when namespaced), that
// the object exists when that can be judged, and that its data parses.
func checkTLSRef(c *analysis.Context, o *manifest.Object, where string, f refField, ref map[string]any, namespaced bool) {
	ownNS := c.Namespace(o)
	key := manifest.Key{Group: field.String(ref, "group"), Kind: field.String(ref, "kind"), Namespace: ownNS, Name: field.String(ref, "name")}
	if key.Kind == "" {
		key.Kind = f.core[0]
	}
	if ns := field.String(ref, "namespace"); namespaced && ns != "" {
		key.Namespace = ns
	}
	if key.Name == "" {
		return // the schema analyzer reports it
	}
	consequence := "TLS that needs it fails"
	if checkRefKind(c, o, where, f, key, consequence) != kindCore {
		return
	}
	target, scope := c.Resolve(key)
	if key.Namespace != ownNS {
		switch checkGrant(c, o.Kind, ownNS, key, scope.Found()) {
		case grantUnknown:
			why, fix := c.WhyUnchecked(grantKey(key.Namespace))
			c.ReportCode(o, analysis.CodeUnresolvedOutside, where, key.String()+" in another namespace, and whether a ReferenceGrant there admits it", why, fix)
		case grantMissing:
			c.ReportCode(o, analysis.CodeCertificateNoGrant, where, key.Kind, analysis.QualifiedName(key.Namespace, key.Name), key.Namespace, o.Kind, ownNS, consequence)
			return
		}
	}
	switch {
	case scope.Found():
		if p := tlsdata.ContentProblem(target); p != "" {
			c.ReportCode(o, analysis.CodeTLSRefMalformed, where, key.String(), p, consequence)
		}
	case missingTLSObject(c, o, key):
		c.ReportCode(o, analysis.CodeTLSRefNotFound, where, key.String(), key.Kind, key.Namespace, consequence)
	}
}

// missingTLSObject reports whether a certificate Secret or CA ConfigMap is
// missing as far as the rendered objects tell: the app (or a context path)
// renders that kind in that namespace, no unrendered scope covers it,
// nothing rendered creates it, and (for Secrets of a Gateway) cert-manager's
// gateway-shim does not create the Gateway's certificates. Certificates are
// often created outside Git, so this is a warning (RG1401), not an error.
func missingTLSObject(c *analysis.Context, o *manifest.Object, key manifest.Key) bool {
	if !c.RendersKind(manifest.GroupKind{Kind: key.Kind}, key.Namespace) || !c.Checkable(key) {
		return false
	}
	if produced(c, key.Kind, key.Namespace, key.Name) {
		return false
	}
	return key.Kind != "Secret" || !tlsdata.ShimmedByCertManager(o)
}

// checkTLSOptions reports TLS option keys that are neither domain-prefixed
// nor defined by Gateway API (which reserves un-prefixed names and defines
// none in v1.6).
func checkTLSOptions(c *analysis.Context, o *manifest.Object, where string, options map[string]any) {
	var bad []string
	for k := range options {
		if !strings.Contains(k, "/") {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return
	}
	slices.Sort(bad)
	c.ReportCode(o, analysis.CodeTLSSettings, where, "tls.options "+strings.Join(bad, ", "),
		"are neither domain-prefixed (example.com/option) nor defined by Gateway API")
}
