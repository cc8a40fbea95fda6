package schema

import (
	"testing"

	"github.com/routeguard/routeguard/internal/analysis/analysistest"
)

func TestEmptySpecs(t *testing.T) {
	analysistest.Run(t, EmptySpecs{}, []analysistest.Case{
		{Name: "valid objects", Files: []string{"valid.yaml"}},
		{Name: "empty or missing specs", Files: []string{"empty_specs.yaml"},
			Want: []string{"RG0004 HTTPRoute apps/empty", "RG0004 Gateway apps/nospec", "RG0004 ReferenceGrant apps/nospec",
				"RG0004 VirtualService apps/hosts-only", "RG0004 Ingress apps/class-only"}},
	})
}
