package validation

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/apiserver"
	"github.com/routeguard/routeguard/internal/manifest"
)

// compareGK orders kinds exactly as their "group/kind" strings do (the
// order the analyzers' kinds, and so their output, have always had),
// where a group is a prefix of another and a kind holds a slash.
func TestCompareGKIsTheJoinedOrder(t *testing.T) {
	gks := []manifest.GroupKind{{}, {Kind: "Service"}, {Group: "apps", Kind: "Deployment"}, {Group: "apps.x", Kind: "A"},
		{Group: "apps", Kind: "A/B"}, {Group: "apps/A", Kind: "B"}, {Group: "a", Kind: ""}, {Group: "", Kind: "a"},
		{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute"}, {Group: "gateway.networking.k8s.io", Kind: "GRPCRoute"},
		{Group: "gateway.networking.x-k8s.io", Kind: "XBackendTrafficPolicy"}, {Group: "networking.istio.io", Kind: "Gateway"}}
	gks = append(gks, apiserver.BundledKinds()...)
	sign := func(n int) int { return cmp.Compare(n, 0) }
	for _, a := range gks {
		for _, b := range gks {
			if got, want := sign(compareGK(a, b)), strings.Compare(a.Group+"/"+a.Kind, b.Group+"/"+b.Kind); got != want {
				t.Errorf("compareGK(%v, %v) = %d, want %d", a, b, got, want)
			}
		}
	}
	sorted := sortedKinds(gks)
	if !slices.IsSortedFunc(sorted, func(a, b manifest.GroupKind) int {
		return strings.Compare(a.Group+"/"+a.Kind, b.Group+"/"+b.Kind)
	}) {
		t.Errorf("sortedKinds is not in group/kind order: %v", sorted)
	}
	// The list made once is not changed by a caller's change to its copy.
	first := bundledKinds()
	first[0] = manifest.GroupKind{Kind: "Changed"}
	if bundledKinds()[0].Kind == "Changed" {
		t.Error("bundledKinds hands out its own list")
	}
}
