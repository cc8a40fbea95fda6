package validation

import (
	"testing"

	"github.com/routeguard/routeguard/internal/analysis/analysistest"
)

func TestSmoke(t *testing.T) {
	for _, f := range []string{"crd_violations.yaml", "unknown_fields.yaml", "builtin_invalid.yaml", "versions.yaml", "no_schema.yaml"} {
		for _, a := range Analyzers() {
			res := analysistest.Analyze(t, a, []string{f}, nil)
			t.Log(f, a.Metadata().Name, "\n", analysistest.Messages(res.Findings))
		}
	}
}
