package gatewayapi

import (
	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/internal/tlsdata"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// produced reports whether something rendered (or in context) creates the
// Secret or ConfigMap ns/name (see package tlsdata).
func produced(c *analysis.Context, kind, ns, name string) bool {
	if kind == "ConfigMap" {
		for _, n := range tlsdata.AlwaysPresentConfigMaps {
			if n == name {
				return true
			}
		}
		bundle, scope := c.Resolve(manifest.Key{Group: tlsdata.BundleGK.Group, Kind: tlsdata.BundleGK.Kind, Name: name})
		return scope.Found() && field.Has(bundle.Body, "spec", "target", "configMap")
	}
	names := c.Memo("gatewayapi.producedSecrets", func() any {
		m := map[[2]string]bool{}
		for _, s := range []*manifest.Set{c.Objects(), c.ContextObjects()} {
			for _, p := range tlsdata.SecretProducers {
				for _, o := range s.ByKind(p.GroupKind.Group, p.GroupKind.Kind) {
					if n, ok := tlsdata.ProducedSecret(o); ok {
						m[[2]string{c.Namespace(o), n}] = true
					}
				}
			}
			for _, b := range s.ByKind(tlsdata.BundleGK.Group, tlsdata.BundleGK.Kind) {
				if field.Has(b.Body, "spec", "target", "secret") {
					m[[2]string{"*", b.Name}] = true
				}
			}
		}
		return m
	}).(map[[2]string]bool)
	return names[[2]string{ns, name}] || names[[2]string{"*", name}]
}
