package gatewayapi

import (
	"context"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// ParametersRefs checks the parametersRef of GatewayClasses and of
// Gateways' spec.infrastructure: a kind implementations read, naming an
// object that exists where that can be judged.
type ParametersRefs struct{}

// Metadata implements analysis.Analyzer.
func (ParametersRefs) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name:        "gatewayapi.ParametersRefs",
		Description: "Checks that GatewayClass and Gateway parametersRefs name a known kind and an object that exists.",
		Doc:         "GatewayClass `parametersRef` and Gateway `infrastructure.parametersRef`: kind (`RG0005`/`RG0006`; EnvoyProxy, GatewayParameters, CiliumGatewayClassConfig, NginxProxy, ... are known) and existence where it can be judged (`RG1501`).",
		Inputs: append([]manifest.GroupKind{
			{Group: Group, Kind: "GatewayClass"}, {Group: Group, Kind: "Gateway"}, {Kind: "ConfigMap"}, {Kind: "Secret"}, crdInput,
		}, refKindParameters.known...),
	}
}

// refKindParameters: parametersRef kinds. Any kind is implementation-
// specific; these are the ones implementations document.
var refKindParameters = refField{core: []string{"ConfigMap", "Secret"}, known: []manifest.GroupKind{
	{Group: "gateway.envoyproxy.io", Kind: "EnvoyProxy"},
	{Group: "gateway.kgateway.dev", Kind: "GatewayParameters"},
	{Group: "cilium.io", Kind: "CiliumGatewayClassConfig"},
	{Group: "gateway.nginx.org", Kind: "NginxProxy"},
	{Group: "gateway-operator.konghq.com", Kind: "GatewayConfiguration"},
	{Group: "networking.gke.io", Kind: "GCPGatewayPolicy"},
	{Group: "projectcontour.io", Kind: "ContourDeployment"},
}}

// Analyze implements analysis.Analyzer.
func (ParametersRefs) Analyze(ctx context.Context, c *analysis.Context) error {
	for _, gc := range c.Objects().ByKind(Group, "GatewayClass") {
		if ref := field.Map(gc.Body, "spec", "parametersRef"); ref != nil {
			checkParametersRef(c, gc, ref, field.String(ref, "namespace"), "GatewayClass")
		}
	}
	for _, gw := range c.Objects().ByKind(Group, "Gateway") {
		if err := ctx.Err(); err != nil {
			return err
		}
		if ref := field.Map(gw.Body, "spec", "infrastructure", "parametersRef"); ref != nil {
			checkParametersRef(c, gw, ref, c.Namespace(gw), "Gateway")
		}
	}
	return nil
}

func checkParametersRef(c *analysis.Context, o *manifest.Object, ref map[string]any, ns, owner string) {
	key := manifest.Key{Group: field.String(ref, "group"), Kind: field.String(ref, "kind"), Namespace: ns, Name: field.String(ref, "name")}
	if key.Kind == "" || key.Name == "" {
		return // the schema analyzer reports it
	}
	consequence := "the " + owner + " is not Accepted (InvalidParameters)"
	if k := checkRefKind(c, o, "parametersRef", refKindParameters, key, consequence); k == kindUnknown || k == kindInvalid {
		return
	}
	switch _, scope := c.Resolve(key); scope {
	case analysis.ScopeMissing:
		c.ReportCode(o, analysis.CodeParametersRef, key.String(), consequence)
	case analysis.ScopeOutside:
		c.ReportOutside(o, "parametersRef", key)
	}
}
