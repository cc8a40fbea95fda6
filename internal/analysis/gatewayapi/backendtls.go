package gatewayapi

import (
	"context"
	"fmt"
	"sort"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// BackendTLSPolicies checks BackendTLSPolicies: each targetRef names an
// existing Service (and, with sectionName, one of its port names), each
// caCertificateRef is of a kind implementations read and exists with a
// parsable CA, and no two policies target the same Service and section.
type BackendTLSPolicies struct{}

// Metadata implements analysis.Analyzer.
func (BackendTLSPolicies) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name: "gatewayapi.BackendTLSPolicies",
		Description: "Checks BackendTLSPolicy targetRefs (Service and port name), caCertificateRefs (kind, existence, contents) " +
			"and policies conflicting on the same target.",
		Doc: "BackendTLSPolicy targetRefs name an existing Service, and `sectionName` one of its port names (`RG1403`); caCertificateRefs as in `GatewayTLS`; two policies on the same Service and section: the newer is Conflicted (`RG1405`).",
		Inputs: append([]manifest.GroupKind{
			{Group: Group, Kind: "BackendTLSPolicy"}, {Kind: "Service"}, {Kind: "ConfigMap"}, {Kind: "Secret"},
			{Group: Group, Kind: "ReferenceGrant"}, crdInput,
		}, producerInputs()...),
	}
}

type tlsTarget struct{ ns, name, section string }

// Analyze implements analysis.Analyzer.
func (BackendTLSPolicies) Analyze(ctx context.Context, c *analysis.Context) error {
	targets := map[tlsTarget][]*manifest.Object{}
	var order []tlsTarget
	for _, s := range []*manifest.Set{c.Objects(), c.ContextObjects()} {
		for _, p := range s.ByKind(Group, "BackendTLSPolicy") {
			if err := ctx.Err(); err != nil {
				return err
			}
			rendered := s == c.Objects()
			for _, ref := range field.Maps(p.Body, "spec", "targetRefs") {
				if field.String(ref, "group") != "" || field.String(ref, "kind") != "Service" {
					continue // implementation-specific targets
				}
				t := tlsTarget{c.Namespace(p), field.String(ref, "name"), field.String(ref, "sectionName")}
				if rendered {
					checkTLSTarget(c, p, t)
				}
				if _, ok := targets[t]; !ok {
					order = append(order, t)
				}
				targets[t] = append(targets[t], p)
			}
			if rendered {
				for _, ref := range field.Maps(p.Body, "spec", "validation", "caCertificateRefs") {
					checkTLSRef(c, p, "validation caCertificateRef", refKindCA, ref, false)
				}
			}
		}
	}
	for _, t := range order {
		ps := targets[t]
		if len(ps) < 2 {
			continue
		}
		sort.SliceStable(ps, func(i, j int) bool { return precedes(c, ps[i], ps[j]) })
		for _, p := range ps[1:] {
			what := "Service " + t.name
			if t.section != "" {
				what += " port " + t.section
			}
			c.ReportCode(p, analysis.CodeBackendTLSConflict, what, c.Ref(ps[0]).String())
		}
	}
	return nil
}

func checkTLSTarget(c *analysis.Context, p *manifest.Object, t tlsTarget) {
	key := manifest.Key{Kind: "Service", Namespace: t.ns, Name: t.name}
	svc, scope := c.Resolve(key)
	switch scope {
	case analysis.ScopeOutside:
		c.ReportOutside(p, "targetRef", key)
		return
	case analysis.ScopeMissing:
		c.ReportCode(p, analysis.CodeBackendTLSTarget, "Service "+analysis.QualifiedName(t.ns, t.name), "does not exist")
		return
	}
	if t.section == "" {
		return
	}
	for _, port := range field.Maps(svc.Body, "spec", "ports") {
		if field.String(port, "name") == t.section {
			return
		}
	}
	c.ReportCode(p, analysis.CodeBackendTLSTarget, fmt.Sprintf("sectionName %q of Service %s", t.section, analysis.QualifiedName(t.ns, t.name)),
		"is not a port name of the Service (ports: "+portList(svc)+")")
}
