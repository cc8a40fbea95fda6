package config

import "testing"

func TestExamplesParse(t *testing.T) {
	for _, p := range []string{"../../examples/apps/routing/gateways/.routeguard.yaml", "../../examples/apps/routing/istio/.routeguard.yaml", "../../examples/apps/routing/ingresses/.routeguard.yaml"} {
		if _, err := Load(p, p); err != nil {
			t.Error(err)
		}
	}
}
