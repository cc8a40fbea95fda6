package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
)

// sample are findings as the runner returns them (sorted by file, line).
var sample = []analysis.Finding{
	{Code: "RG1101", Severity: analysis.SeverityError, Message: "backendRef names Service shop/web-v2, which does not exist",
		Object:   analysis.ObjectRef{APIVersion: "gateway.networking.k8s.io/v1", Kind: "HTTPRoute", Namespace: "shop", Name: "web"},
		Source:   manifest.Source{File: "apps/shop/route.yaml", Line: 12},
		Analyzer: "gatewayapi.BackendRefs"},
	{Code: "RG4002", Severity: analysis.SeverityWarning, Message: `container "web" runs image "nginx:latest" <&>`,
		Object:   analysis.ObjectRef{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web"},
		Source:   manifest.Source{File: "apps/shop/web.yaml", Line: 1},
		Analyzer: "policy.Images"},
	{Code: "IST0101", Severity: analysis.SeverityInfo, Message: "Referenced host not found",
		Object:   analysis.ObjectRef{APIVersion: "networking.istio.io/v1", Kind: "VirtualService", Namespace: "shop", Name: "web"},
		Source:   manifest.Source{File: "apps/shop/route.yaml", Line: 30},
		Analyzer: "istio.Analyzers"},
}

func render(t *testing.T, format string, opts Options, fs []analysis.Finding) string {
	t.Helper()
	var buf bytes.Buffer
	w, err := New(format, &buf, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if err := w.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	if buf.Len() != 0 {
		t.Errorf("%s wrote before Flush", format)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestNewUnknownFormat(t *testing.T) {
	_, err := New("xml", &bytes.Buffer{}, Options{})
	if err == nil || !strings.Contains(err.Error(), "use one of "+strings.Join(Formats(), ", ")) || !strings.Contains(err.Error(), "json, junit") {
		t.Fatalf("err = %v", err)
	}
}

func TestDeterministic(t *testing.T) {
	for _, f := range Formats() {
		a, b := render(t, f, Options{}, sample), render(t, f, Options{}, sample)
		if a != b {
			t.Errorf("%s output differs between runs", f)
		}
	}
}
