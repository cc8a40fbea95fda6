package report

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
)

func TestJSON(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal([]byte(render(t, "json", Options{}, sample)), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["schemaVersion"] != float64(1) {
		t.Errorf("schemaVersion = %v", doc["schemaVersion"])
	}
	fs := doc["findings"].([]any)
	if len(fs) != 3 {
		t.Fatalf("%d findings", len(fs))
	}
	rg1101, _ := analysis.LookupCode("RG1101")
	want := map[string]any{
		"code": "RG1101", "severity": "error", "message": "backendRef names Service shop/web-v2, which does not exist",
		"object": map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute", "namespace": "shop", "name": "web"},
		"file":   "apps/shop/route.yaml", "line": float64(12), "analyzer": "gatewayapi.BackendRefs",
		"help": rg1101.Description,
	}
	if !reflect.DeepEqual(fs[0], want) {
		t.Errorf("finding 0 = %v\nwant %v", fs[0], want)
	}
	// A code the catalog does not hold (Istio's) has no help.
	if h, ok := fs[2].(map[string]any)["help"]; ok {
		t.Errorf("IST0101 has help %q", h)
	}
	if s := doc["summary"].(map[string]any); s["errors"] != float64(1) || s["warnings"] != float64(1) || s["infos"] != float64(1) {
		t.Errorf("summary = %v", s)
	}
}

func TestJSONEmptyIsList(t *testing.T) {
	var doc struct {
		Findings []any `json:"findings"`
	}
	out := render(t, "json", Options{}, nil)
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Findings == nil {
		t.Errorf("empty report must have findings: [], got %s", out)
	}
}
