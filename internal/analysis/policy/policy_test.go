package policy

import (
	"testing"

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
