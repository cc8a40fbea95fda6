package schema

import (
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis/analysistest"
)

func TestTypes(t *testing.T) {
	analysistest.Run(t, Types{}, []analysistest.Case{
		{Name: "valid objects", Files: []string{"valid.yaml"}},
		{Name: "wrong types", Files: []string{"wrong_types.yaml"},
			Want: []string{"RG0002 HTTPRoute apps/string-rules", "RG0002 Gateway apps/port-word", "RG0002 Service apps/ports-map"}},
		{Name: "several wrong fields in one object", Files: []string{"several_wrong.yaml"},
			Want: []string{"RG0002 HTTPRoute apps/many", "RG0002 HTTPRoute apps/many", "RG0002 HTTPRoute apps/many"}},
		{Name: "unknown fields", Files: []string{"unknown_fields.yaml"},
			Want: []string{"RG0003 Ingress apps/typo", "RG0003 HTTPRoute apps/indented"}},
		{Name: "SOPS-encrypted Secret (decrypted by Flux before it is applied)", Files: []string{"sops_secret.yaml"}},
	})
}

func TestTypesMessages(t *testing.T) {
	res := analysistest.Analyze(t, Types{}, []string{"wrong_types.yaml", "unknown_fields.yaml"}, nil)
	want := map[string]string{
		"HTTPRoute apps/string-rules": "spec.rules: a string where a list (of HTTPRouteRule) belongs",
		"Gateway apps/port-word":      "spec.listeners.port: a string where an integer belongs",
		"Service apps/ports-map":      "spec.ports: a map where a list (of ServicePort) belongs",
		"Ingress apps/typo":           "spec.rulez is not a field of networking.k8s.io/v1 Ingress",
		"HTTPRoute apps/indented":     "spec.parentRefs[0].hostnames is not a field",
	}
	for _, f := range res.Findings {
		w, ok := want[f.Object.String()]
		if !ok || !strings.Contains(f.Message, w) {
			t.Errorf("%s: message %q, want it to contain %q", f.Object, f.Message, w)
		}
		if !strings.HasPrefix(f.Source.String(), "testdata/") || f.Source.Line == 0 {
			t.Errorf("%s: source %s lacks file:line", f.Object, f.Source)
		}
	}
}

func TestEmptySpecs(t *testing.T) {
	analysistest.Run(t, EmptySpecs{}, []analysistest.Case{
		{Name: "valid objects", Files: []string{"valid.yaml"}},
		{Name: "empty or missing specs", Files: []string{"empty_specs.yaml"},
			Want: []string{"RG0004 HTTPRoute apps/empty", "RG0004 Gateway apps/nospec", "RG0004 ReferenceGrant apps/nospec",
				"RG0004 VirtualService apps/hosts-only", "RG0004 Ingress apps/class-only"}},
	})
}
