package istioroutes

import (
	"testing"

	"github.com/routeguard/routeguard/internal/analysis/analysistest"
)

func TestSubsets(t *testing.T) {
	analysistest.Run(t, Subsets{}, []analysistest.Case{
		{Name: "blue/green subsets defined, short and long host names", Files: []string{"bluegreen_ok.yaml"}},
		{Name: "undefined subset and no DestinationRule", Files: []string{"subset_missing.yaml"},
			Want: []string{"RG3001 VirtualService bookinfo/reviews", "RG3001 VirtualService bookinfo/ratings"}},
		{Name: "destination in a namespace not rendered", Files: []string{"subset_other_namespace.yaml"},
			Want: []string{"RG0001 VirtualService bookinfo/pay"}},
		{Name: "DestinationRule found in context", Files: []string{"subset_other_namespace.yaml"},
			Context: []string{"context_payments.yaml"}},
	})
}

func TestWeights(t *testing.T) {
	analysistest.Run(t, Weights{}, []analysistest.Case{
		{Name: "90/10 and a single destination", Files: []string{"bluegreen_ok.yaml"}},
		{Name: "80/10 and a lone 50 fire, 100/unset does not", Files: []string{"weights_bad.yaml"},
			Want: []string{"RG3002 VirtualService bookinfo/reviews", "RG3002 VirtualService bookinfo/single"}},
	})
}

func TestFQDN(t *testing.T) {
	tests := []struct{ host, ns, want string }{
		{"reviews", "bookinfo", "reviews.bookinfo.svc.cluster.local"},
		{"reviews.other", "bookinfo", "reviews.other.svc.cluster.local"},
		{"reviews.other.svc", "bookinfo", "reviews.other.svc.cluster.local"},
		{"reviews.other.svc.cluster.local", "bookinfo", "reviews.other.svc.cluster.local"},
		{"api.example.com", "bookinfo", "api.example.com"},
	}
	for _, tc := range tests {
		if got := fqdn(tc.host, tc.ns); got != tc.want {
			t.Errorf("fqdn(%q, %q) = %q, want %q", tc.host, tc.ns, got, tc.want)
		}
	}
}
