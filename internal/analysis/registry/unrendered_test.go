package registry

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
)

// TestUnrenderedScopes runs every built-in analyzer over an app whose
// namespace also holds what an unrendered HelmRelease would create.
// Without the scope every reference into the namespace is dangling (the
// app renders the Namespace); with it, none is an error: each is RG0001
// and says why it cannot be checked.
func TestUnrenderedScopes(t *testing.T) {
	data, err := os.ReadFile("testdata/unrendered.yaml")
	if err != nil {
		t.Fatal(err)
	}
	objs, err := manifest.Decode("testdata/unrendered.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	set := manifest.NewSet()
	if err := set.AddAll(objs); err != nil {
		t.Fatal(err)
	}
	run := func(scopes []analysis.UnrenderedScope) *analysis.Result {
		res, err := analysis.RunAnalyzers(context.Background(), analysis.RunOptions{Set: set, Analyzers: All(), Unrendered: scopes})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	codes := func(res *analysis.Result, sev analysis.Severity) []string {
		var out []string
		for _, f := range res.Findings {
			if f.Severity == sev {
				out = append(out, f.Code+" "+f.Object.String())
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}

	wantErrors := []string{
		"RG1001 HTTPRoute media/jellyfin", "RG1101 HTTPRoute media/jellyfin", "RG1207 ListenerSet media/media",
		"RG1403 BackendTLSPolicy media/jellyfin", "RG2001 Ingress media/jellyfin", "RG3001 VirtualService media/jellyfin",
	}
	if got := codes(run(nil), analysis.SeverityError); !slices.Equal(got, wantErrors) {
		t.Errorf("without the unrendered scope, errors:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(wantErrors, "\n  "))
	}

	reason := "HelmRelease media/jellyfin: its chart comes from an OCIRepository, which cannot be fetched offline"
	for _, scope := range []analysis.UnrenderedScope{
		{Namespace: "media", Reason: reason},
		{Namespace: "*", Reason: reason},
		{Namespace: "media", Reason: reason, Kinds: []manifest.GroupKind{
			{Kind: "Service"}, {Group: "gateway.networking.k8s.io", Kind: "Gateway"},
			{Group: "networking.istio.io", Kind: "*"}}},
	} {
		res := run([]analysis.UnrenderedScope{scope})
		if errs := codes(res, analysis.SeverityError); len(errs) > 0 {
			t.Errorf("scope %+v: errors remain: %v", scope.Kinds, errs)
		}
		n := 0
		for _, f := range res.Findings {
			if f.Code == analysis.CodeUnresolvedOutside {
				n++
				if !strings.Contains(f.Message, reason) {
					t.Errorf("RG0001 does not say why: %s", f.Message)
				}
			}
		}
		if n < 6 {
			t.Errorf("scope %+v: %d RG0001 findings, want one per reference (6): %v", scope.Kinds, n, codes(res, analysis.SeverityWarning))
		}
	}

	// A scope of other kinds leaves the Services dangling.
	res := run([]analysis.UnrenderedScope{{Namespace: "media", Reason: reason, Kinds: []manifest.GroupKind{{Group: "apps", Kind: "Deployment"}}}})
	if errs := codes(res, analysis.SeverityError); !slices.Contains(errs, "RG1101 HTTPRoute media/jellyfin") {
		t.Errorf("a scope of Deployments only covers the Service too: %v", errs)
	}
}
