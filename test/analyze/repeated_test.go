package analyze

import (
	"strings"
	"testing"
)

// TestRepeatedObjectLastWins: an object a directory app defines twice is a
// warning (RG0010) on the second definition, never exit 2, and the second
// one is what is analyzed, as Argo CD applies it: the route's port 8080
// exists only in the second Service.
func TestRepeatedObjectLastWins(t *testing.T) {
	fs, code, stderr := analyzeEnv(t, nil, "test/analyze/testdata/repeated-object")
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr: %s", code, stderr)
	}
	var repeated []finding
	for _, f := range fs {
		switch {
		case f.Code == "RG0010":
			repeated = append(repeated, f)
		case f.Severity == "error":
			t.Errorf("error finding: %+v (the first Service was analyzed, not the last)", f)
		}
	}
	if len(repeated) != 1 {
		t.Fatalf("RG0010 findings: %+v", repeated)
	}
	f := repeated[0]
	if f.Severity != "warning" || !strings.HasSuffix(f.File, "b-service.yaml") || f.Line != 1 ||
		f.Object.Kind != "Service" || f.Object.Name != "web" || !strings.Contains(f.Message, "a-route.yaml:3") {
		t.Errorf("RG0010 = %+v", f)
	}
}
