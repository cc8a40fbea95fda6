package health

import (
	"strings"
	"testing"
)

func TestCheckBounds(t *testing.T) {
	parents := func(n int) map[string]any {
		var ps []any
		for range n {
			ps = append(ps, map[string]any{"parentRef": map[string]any{"name": "gw"}})
		}
		return map[string]any{"kind": "HTTPRoute", "status": map[string]any{"parents": ps}}
	}
	if err := CheckBounds(parents(MaxListEntries)); err != nil {
		t.Fatalf("%d parents refused: %v", MaxListEntries, err)
	}
	err := CheckBounds(parents(200_000))
	if err == nil || !strings.Contains(err.Error(), "status.parents holds 200000 entries") {
		t.Fatalf("200,000 parents: %v", err)
	}
	deep := map[string]any{"status": map[string]any{"parents": []any{map[string]any{"conditions": make([]any, MaxListEntries+1)}}}}
	if err := CheckBounds(deep); err == nil || !strings.Contains(err.Error(), "status.parents[0].conditions holds") {
		t.Fatalf("nested list: %v", err)
	}
}
