package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
)

// parentNotFound is an RG1001 finding made from the catalog's template,
// as its analyzer makes it.
func parentNotFound(kind, name string) analysis.Finding {
	return analysis.Finding{Code: analysis.CodeParentNotFound, Severity: analysis.SeverityError,
		Object: analysis.ObjectRef{APIVersion: "gateway.networking.k8s.io/v1", Kind: "HTTPRoute", Namespace: "shop", Name: "web"},
		Source: manifest.Source{File: "apps/shop/route.yaml", Line: 12}, Analyzer: "gatewayapi.ParentRefs"}.Fill(kind, name)
}

// reworded is f as it would be had its code's template another wording:
// the catalog's template with its format swapped, filled with f's
// arguments.
func reworded(t *testing.T, f analysis.Finding, format string) analysis.Finding {
	t.Helper()
	tmpl, ok := analysis.Messages()[f.Code]
	if !ok {
		t.Fatalf("%s has no template", f.Code)
	}
	if strings.Count(format, "%") != strings.Count(tmpl.Format, "%") {
		t.Fatalf("format %q does not take the arguments of %q", format, tmpl.Format)
	}
	f.Message = fmt.Sprintf(format, f.Args...)
	if strings.Contains(f.Message, "%!") || f.Message == analysis.Message(f.Code, f.Args...) {
		t.Fatalf("rewording gave %q", f.Message)
	}
	return f
}

// fingerprintsOf renders fs as GitLab's report and as SARIF and returns
// each finding's fingerprint, checking that both formats agree.
func fingerprintsOf(t *testing.T, fs ...analysis.Finding) []string {
	t.Helper()
	var issues []gitlabIssue
	if err := json.Unmarshal([]byte(render(t, "gitlab", Options{}, fs)), &issues); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct{ PartialFingerprints map[string]string }
		}
	}
	if err := json.Unmarshal([]byte(render(t, "sarif", Options{}, fs)), &log); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(issues))
	for i, is := range issues {
		out[i] = is.Fingerprint
		if s := log.Runs[0].Results[i].PartialFingerprints["routeguardFinding/v1"]; s != is.Fingerprint || len(s) != 32 {
			t.Errorf("finding %d: gitlab fingerprint %q, sarif %q", i, is.Fingerprint, s)
		}
	}
	return out
}

func TestFingerprintSurvivesRewording(t *testing.T) {
	f := parentNotFound("Gateway", "infra/public")
	g := reworded(t, f, "no %s named %s: the route attaches to nothing")
	if a, b := fingerprintsOf(t, f)[0], fingerprintsOf(t, g)[0]; a != b {
		t.Errorf("rewording %q as %q changed the fingerprint: %s, %s", f.Message, g.Message, a, b)
	}
}

func TestFingerprintFollowsArguments(t *testing.T) {
	base := fingerprintsOf(t, parentNotFound("Gateway", "infra/public"))[0]
	for _, f := range []analysis.Finding{
		parentNotFound("Gateway", "infra/private"),
		parentNotFound("ListenerSet", "infra/public"),
		// The arguments' boundaries count, not only their text.
		parentNotFound("Gatewayinfra", "/public"),
	} {
		if got := fingerprintsOf(t, f)[0]; got == base {
			t.Errorf("%v: same fingerprint as Gateway infra/public", f.Args)
		}
	}
	// Two findings of one code on one object, different arguments, in
	// one report.
	two := fingerprintsOf(t, parentNotFound("Gateway", "infra/public"), parentNotFound("Gateway", "infra/private"))
	if two[0] != base || two[1] == base {
		t.Errorf("fingerprints %v, want %s first and another second", two, base)
	}
}

func TestFingerprintIdentity(t *testing.T) {
	f := parentNotFound("Gateway", "infra/public")
	base := fingerprintsOf(t, f)[0]
	change := map[string]func(*analysis.Finding){
		"file":        func(f *analysis.Finding) { f.Source.File = "apps/shop/other.yaml" },
		"code":        func(f *analysis.Finding) { f.Code = analysis.CodeBackendNotFound },
		"name":        func(f *analysis.Finding) { f.Object.Name = "web-2" },
		"namespace":   func(f *analysis.Finding) { f.Object.Namespace = "shop-2" },
		"kind":        func(f *analysis.Finding) { f.Object.Kind = "GRPCRoute" },
		"group":       func(f *analysis.Finding) { f.Object.APIVersion = "example.com/v1" },
		"application": func(f *analysis.Finding) { f.App = "argocd/shop" },
	}
	for what, fn := range change {
		g := f
		fn(&g)
		if got := fingerprintsOf(t, g)[0]; got == base {
			t.Errorf("another %s, same fingerprint", what)
		}
	}
	keep := map[string]func(*analysis.Finding){
		"line":     func(f *analysis.Finding) { f.Source.Line = 99 },
		"severity": func(f *analysis.Finding) { f.Severity = analysis.SeverityWarning },
		"version":  func(f *analysis.Finding) { f.Object.APIVersion = "gateway.networking.k8s.io/v1beta1" },
		"analyzer": func(f *analysis.Finding) { f.Analyzer = "gatewayapi.Other" },
	}
	for what, fn := range keep {
		g := f
		fn(&g)
		if got := fingerprintsOf(t, g)[0]; got != base {
			t.Errorf("another %s, another fingerprint", what)
		}
	}
}

func TestFingerprintTellsDuplicatesApart(t *testing.T) {
	// The same finding at two lines of one file (one object defined
	// twice): two alerts, the first keeping the fingerprint it has alone.
	f := parentNotFound("Gateway", "infra/public")
	g := f
	g.Source.Line = 40
	alone := fingerprintsOf(t, f)[0]
	both := fingerprintsOf(t, f, g)
	if both[0] != alone || both[1] == alone {
		t.Errorf("fingerprints %v, want %s then another", both, alone)
	}
	three := fingerprintsOf(t, f, g, g)
	if three[0] == three[2] || three[1] == three[2] || three[1] != both[1] {
		t.Errorf("fingerprints %v, want three different, the first two as %v", three, both)
	}
}

func TestFingerprintWithoutTemplateHashesMessage(t *testing.T) {
	// Istio's findings, a plugin's, a build error: no template, so the
	// message is what tells them apart.
	f := sample[2]
	if f.Args != nil {
		t.Fatal("sample IST0101 has Args")
	}
	g := f
	g.Message = "Referenced host not found: \"web.shop\""
	fs := fingerprintsOf(t, f, g, f)
	if fs[0] == fs[1] {
		t.Errorf("two messages, one fingerprint %s", fs[0])
	}
	if again := fingerprintsOf(t, f)[0]; again != fs[0] {
		t.Errorf("same finding: %s, then %s", fs[0], again)
	}
	// A template without arguments still counts as one: its message is
	// not hashed.
	h := analysis.Finding{Code: analysis.CodeParentNotFound, Object: f.Object, Source: f.Source}.Fill()
	if h.Args == nil {
		t.Fatal("Fill() left Args nil")
	}
	k := h
	k.Message = "reworded"
	if a, b := fingerprintsOf(t, h)[0], fingerprintsOf(t, k)[0]; a != b {
		t.Errorf("no arguments: rewording changed the fingerprint: %s, %s", a, b)
	}
}

// TestFingerprintPinned holds the computation still: changing it closes
// and reopens every GitLab and code scanning alert routeguard made, so it
// must be deliberate, and said where the release notes will read it.
func TestFingerprintPinned(t *testing.T) {
	got := fingerprintsOf(t, parentNotFound("Gateway", "infra/public"), sample[2])
	want := []string{"efed73f86edfaec2269383f3beb69724", "5daf11c6cd10af0bc6e72d9aee3f6a2a"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("fingerprint %d = %s, want %s", i, got[i], want[i])
		}
	}
}
