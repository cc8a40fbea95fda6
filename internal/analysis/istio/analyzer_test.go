package istio

import (
	"context"
	"slices"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Through the runner: the wrapper reports the same findings as Analyze,
// with the run's default namespace, and they pass the runner's checks
// (IST codes are accepted as foreign codes, severities are set).
func TestAnalyzerThroughRunner(t *testing.T) {
	set := manifest.NewSet()
	for _, f := range []string{"vs-missing-host.yaml", "bad-spec.yaml", "dr-subset-unbacked.yaml"} {
		for _, o := range load(t, f) {
			if _, dup := set.Get(o.Key()); !dup {
				if err := set.Add(o); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	res, err := analysis.RunAnalyzers(context.Background(), analysis.RunOptions{
		Set: set, Analyzers: []analysis.Analyzer{Analyzers{}}, DefaultNamespace: "shop",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"IST0106 error VirtualService shop/broken testdata/bad-spec.yaml:2",
		"IST0173 error DestinationRule shop/reviews testdata/dr-subset-unbacked.yaml:31",
		"IST0101 error VirtualService shop/ratings testdata/vs-missing-host.yaml:14",
		"IST0101 error VirtualService shop/payments testdata/vs-missing-host.yaml:41",
		"RG0001 warning VirtualService shop/payments testdata/vs-missing-host.yaml:41",
	}
	if got := summary(res.Findings); !slices.Equal(got, want) {
		t.Fatalf("findings:\n got %q\nwant %q", got, want)
	}
	if !slices.Equal(res.Analyzers, []string{Name}) {
		t.Fatalf("analyzers %v", res.Analyzers)
	}
}

func TestMetadata(t *testing.T) {
	md := Analyzers{}.Metadata()
	if md.Name != "istio.Analyzers" || md.Description == "" {
		t.Fatalf("metadata %+v", md)
	}
	for _, gk := range []manifest.GroupKind{
		{Kind: "Service"}, {Kind: "Namespace"}, {Kind: "Pod"}, {Group: "apps", Kind: "StatefulSet"},
		{Group: "networking.istio.io", Kind: "VirtualService"}, {Group: "networking.istio.io", Kind: "DestinationRule"},
		// credentialName Secrets, and what creates them
		{Kind: "Secret"}, {Group: "cert-manager.io", Kind: "Certificate"}, {Group: "external-secrets.io", Kind: "ExternalSecret"},
	} {
		if !slices.Contains(md.Inputs, gk) {
			t.Errorf("inputs lack %v: %v", gk, md.Inputs)
		}
	}
	if !slices.Contains(md.Inputs, manifest.GroupKind{Kind: "Node"}) {
		t.Errorf("Istio's analyzers read Nodes (locality): %v", md.Inputs)
	}
}
