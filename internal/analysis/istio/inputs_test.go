package istio

import (
	"os"
	"strings"
	"testing"
)

// testdata/inputs.txt lists the kinds istio.Analyze reads, one "group/Kind"
// a line ("" group for core). A host that sends the plugin only these kinds
// (instead of the whole rendered set) gets the same findings; keep any such
// list in sync with this file (ROUTEGUARD_UPDATE_INPUTS=1 rewrites it).
func TestInputsFile(t *testing.T) {
	var b strings.Builder
	for _, gk := range inputs() {
		b.WriteString(gk.Group + "/" + gk.Kind + "\n")
	}
	if os.Getenv("ROUTEGUARD_UPDATE_INPUTS") == "1" {
		if err := os.WriteFile("testdata/inputs.txt", []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/inputs.txt")
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Fatalf("the kinds Istio's analyzers read changed:\n%s\nwant (testdata/inputs.txt):\n%s", b.String(), want)
	}
}
