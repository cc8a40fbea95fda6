package ingress

import (
	"context"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// TLSHosts finds TLS hosts of an Ingress that none of its rules serves.
type TLSHosts struct{}

// Metadata implements analysis.Analyzer.
func (TLSHosts) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name:        "ingress.TLSHosts",
		Description: "Finds Ingress tls.hosts that no rule of the Ingress serves.",
		Doc:         "`tls.hosts` that no rule of the Ingress serves (a wildcard rule host covers one label).",
		Inputs:      []manifest.GroupKind{ingressInput},
	}
}

// Analyze implements analysis.Analyzer.
func (TLSHosts) Analyze(ctx context.Context, c *analysis.Context) error {
	for _, ing := range ingresses(c) {
		if err := ctx.Err(); err != nil {
			return err
		}
		var ruleHosts []string
		anyHost := false
		for _, r := range field.Maps(ing.Body, "spec", "rules") {
			h := field.String(r, "host")
			if h == "" {
				anyHost = true
			}
			ruleHosts = append(ruleHosts, h)
		}
		if anyHost {
			continue // a rule without host serves every host
		}
		for _, t := range field.Maps(ing.Body, "spec", "tls") {
			for _, h := range field.Strings(t, "hosts") {
				if !covered(h, ruleHosts) {
					c.ReportCode(ing, analysis.CodeIngressTLSHost, h, strings.Join(ruleHosts, ", "))
				}
			}
		}
	}
	return nil
}

func covered(h string, rules []string) bool {
	for _, r := range rules {
		if r == h {
			return true
		}
		if strings.HasPrefix(r, "*.") && !strings.HasPrefix(h, "*.") {
			// A wildcard rule host matches exactly one DNS label.
			if rest, ok := strings.CutSuffix(h, r[1:]); ok && rest != "" && !strings.Contains(rest, ".") {
				return true
			}
		}
	}
	return false
}
