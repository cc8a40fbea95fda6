package policy

import (
	"context"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"

	"github.com/routeguard/routeguard/internal/analysis/analysistest"
)

func TestPlainSecrets(t *testing.T) {
	analysistest.Run(t, PlainSecrets{}, []analysistest.Case{
		{Name: "data and stringData fire, empty and sealed do not", Files: []string{"secrets.yaml"},
			Want: []string{"RG4001 Secret shop/db", "RG4001 Secret shop/token"}},
		{Name: "no secrets", Files: []string{"images_ok.yaml"}},
	})
}

func TestImages(t *testing.T) {
	analysistest.Run(t, Images{}, []analysistest.Case{
		{Name: "latest, untagged with registry port, cronjob", Files: []string{"images.yaml"},
			Want: []string{"RG4002 Deployment shop/web", "RG4002 Deployment shop/web", "RG4002 CronJob shop/report"}},
		{Name: "tag after registry port", Files: []string{"images_ok.yaml"}},
	})
}

func TestCRDOrdering(t *testing.T) {
	analysistest.Run(t, CRDOrdering{}, []analysistest.Case{
		{Name: "earlier wave and PreSync hook fire, same wave does not", Files: []string{"crd_unordered.yaml"},
			Want: []string{"RG4004 Widget shop/earlier-wave", "RG4004 Widget shop/presync"}},
		{Name: "CRD in an earlier wave", Files: []string{"crd_ordered.yaml"}},
		{Name: "CRD and resource in one sync without waves (was RG4003)", Files: []string{"crd_same_sync.yaml"}},
	})
}

func TestMutable(t *testing.T) {
	tests := []struct {
		img     string
		mutable bool
	}{
		{"nginx", true}, {"nginx:latest", true}, {"nginx:1.27", false},
		{"localhost:5000/app", true}, {"localhost:5000/app:v1", false},
		{"app@sha256:abc", false}, {"app:latest@sha256:abc", false},
	}
	for _, tc := range tests {
		if got := mutable(tc.img) != ""; got != tc.mutable {
			t.Errorf("mutable(%q) = %v, want %v", tc.img, got, tc.mutable)
		}
	}
}

// RG4001 says where the values are as the file holds them: stringData is
// plain text, data is base64 (not "base64" for a stringData value).
func TestPlainSecretsMessageNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want, not  []string
	}{
		{"stringData", "stringData: {token: abc}", []string{"1 in stringData (plain text)"}, []string{"base64", "in data"}},
		{"data", "data: {token: YWJj}", []string{"1 in data (base64"}, []string{"stringData"}},
		{"both", "data: {a: YWJj}\nstringData: {b: abc, c: def}", []string{"3 value(s)", "1 in data", "2 in stringData"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Decode("s.yaml", []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: shop}\n"+tc.body+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			set := manifest.NewSet()
			if err := set.AddAll(objs); err != nil {
				t.Fatal(err)
			}
			res, err := analysis.RunAnalyzers(context.Background(), analysis.RunOptions{Set: set, Analyzers: []analysis.Analyzer{PlainSecrets{}}})
			if err != nil || len(res.Findings) != 1 {
				t.Fatalf("findings %+v, err %v", res.Findings, err)
			}
			msg := res.Findings[0].Message
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(msg, n) {
					t.Errorf("message %q says %q", msg, n)
				}
			}
		})
	}
}
