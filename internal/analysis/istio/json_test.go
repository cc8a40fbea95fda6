package istio

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
)

// The plugin boundary carries bodies as JSON, so numbers arrive as float64
// rather than int64: the findings must not change.
func TestJSONBodiesGiveSameFindings(t *testing.T) {
	for _, tc := range grid {
		objs := load(t, tc.file)
		var viaJSON []*manifest.Object
		for _, o := range objs {
			data, err := json.Marshal(o.Body)
			if err != nil {
				t.Fatal(err)
			}
			var body map[string]any
			if err := json.Unmarshal(data, &body); err != nil {
				t.Fatal(err)
			}
			jo, err := manifest.FromBody(body, o.Source)
			if err != nil {
				t.Fatal(err)
			}
			viaJSON = append(viaJSON, jo)
		}
		want, err := Analyze(context.Background(), objs, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Analyze(context.Background(), viaJSON, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(got, want, analysis.Finding.Same) {
			t.Errorf("%s: via JSON\n%v\nwant\n%v", tc.file, got, want)
		}
	}
}
