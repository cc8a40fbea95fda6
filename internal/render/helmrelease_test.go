package render

import (
	"context"
	"path/filepath"
	"testing"
)

// TestRenderReleaseValuesFilesReplaceChartValues: with spec.chart.spec.
// valuesFiles, source-controller packages the chart with those files merged
// as its values.yaml, so the chart's own values.yaml applies only if listed.
func TestRenderReleaseValuesFilesReplaceChartValues(t *testing.T) {
	repo := writeTree(t, map[string]string{
		"chart/Chart.yaml":        "apiVersion: v2\nname: c\nversion: 1.0.0\n",
		"chart/values.yaml":       "a: chart-default\nb: chart-only\n",
		"chart/values-prod.yaml":  "a: prod\n",
		"chart/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: {{ .Values.a | quote }}\n  b: {{ .Values.b | default \"unset\" | quote }}\n  c: {{ .Values.c | default \"unset\" | quote }}\n",
	})
	tests := []struct {
		name        string
		valuesFiles []string
		values      map[string]any
		want        map[string]any
	}{
		{"no valuesFiles: chart defaults", nil, nil, map[string]any{"a": "chart-default", "b": "chart-only", "c": "unset"}},
		{"valuesFiles without values.yaml", []string{"values-prod.yaml"}, nil, map[string]any{"a": "prod", "b": "unset", "c": "unset"}},
		{"values.yaml listed first", []string{"values.yaml", "values-prod.yaml"}, nil, map[string]any{"a": "prod", "b": "chart-only", "c": "unset"}},
		{"spec.values over the files", []string{"values-prod.yaml"}, map[string]any{"a": "inline", "c": "inline"}, map[string]any{"a": "inline", "b": "unset", "c": "inline"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, _, err := RenderRelease(context.Background(), repo, filepath.Join(repo, "chart"),
				ReleaseOptions{Name: "r", Namespace: "ns", ValuesFiles: tt.valuesFiles, Values: tt.values})
			if err != nil {
				t.Fatal(err)
			}
			o, ok := set.Lookup("", "ConfigMap", "", "cm")
			if !ok {
				t.Fatalf("no ConfigMap cm in %d objects", set.Len())
			}
			data := o.Body["data"].(map[string]any)
			for k, v := range tt.want {
				if data[k] != v {
					t.Errorf("data.%s = %v, want %v", k, data[k], v)
				}
			}
		})
	}
}
