package pluginhost

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/istio"
	"github.com/routeguard/routeguard/internal/config"
)

// TestRouteguardDoesNotLinkIstio is the point of the Istio plugin: the
// binary every Argo CD manifest generation starts must not carry Istio.
func TestRouteguardDoesNotLinkIstio(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../cmd/routeguard").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/routeguard/routeguard/internal/pluginhost") {
		t.Error("cmd/routeguard does not link the plugin host; is the analyze command wired?")
	}
	for _, d := range deps {
		if strings.HasPrefix(d, "istio.io/") {
			t.Fatalf("cmd/routeguard links %s; Istio must stay behind the routeguard-istio plugin", d)
		}
	}
}

func TestIstioLoadedOnlyForIstioObjects(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "routeguard")
	opts := Options{Executable: func() (string, error) { return exe, nil }, Getenv: func(string) string { return "" }}

	opts.Set = decodeSet(t, "a.yaml", appYAML)
	s, err := Load(opts)
	if err != nil || len(s.Analyzers()) != 0 || len(s.Notes()) != 0 {
		t.Fatalf("no Istio objects: analyzers %v notes %v err %v", s.Analyzers(), s.Notes(), err)
	}

	opts.Set = decodeSet(t, "vs.yaml", "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: a}\n")
	s, err = Load(opts)
	if err != nil || len(s.Analyzers()) != 0 || len(s.Warnings()) != 1 || len(s.Notes()) != 0 || !strings.Contains(s.Warnings()[0], "routeguard-istio is neither beside routeguard nor on PATH") {
		t.Fatalf("Istio objects, no plugin: analyzers %v notes %v err %v", s.Analyzers(), s.Notes(), err)
	}

	opts.Config = &config.Plugins{Istio: "off"}
	if s, _ = Load(opts); len(s.Analyzers())+len(s.Notes()) != 0 {
		t.Fatal("istio: off still loads or mentions the plugin")
	}
}

func TestFindIstio(t *testing.T) {
	beside, onPath := t.TempDir(), t.TempDir()
	for _, d := range []string{beside, onPath} {
		os.WriteFile(filepath.Join(d, IstioBinary), []byte("#!/bin/sh\n"), 0o755)
	}
	exe := func() (string, error) { return filepath.Join(beside, "routeguard"), nil }
	getenv := func(string) string { return "/nonexistent" + string(filepath.ListSeparator) + onPath }
	if p, ok := FindIstio(exe, getenv); !ok || p != filepath.Join(beside, IstioBinary) {
		t.Errorf("beside: %s %v", p, ok)
	}
	os.Remove(filepath.Join(beside, IstioBinary))
	if p, ok := FindIstio(exe, getenv); !ok || p != filepath.Join(onPath, IstioBinary) {
		t.Errorf("PATH: %s %v", p, ok)
	}
	if _, ok := FindIstio(exe, func(string) string { return "" }); ok {
		t.Error("found a plugin that is nowhere")
	}
}

// TestIstioPluginMatchesInProcess runs routeguard-istio through the
// boundary and checks it reports exactly what the in-process analyzer
// reports on the same objects, and that what Istio's analyzers need
// reaches the plugin: hosts (IST0101), credentialName Secrets and what
// creates them (IST0101, IST0161), workloads behind DestinationRule
// subsets (IST0173), Gateway API CRDs (IST0176).
func TestIstioPluginMatchesInProcess(t *testing.T) {
	plugin := istioPlugin(t)
	for _, tc := range []struct {
		files []string
		want  []string // codes that must come through the plugin
	}{
		{[]string{"vs-missing-host.yaml"}, []string{"IST0101", "RG0001"}},
		{[]string{"gateway-credentials.yaml"}, []string{"IST0101", "IST0161"}},
		{[]string{"dr-subset-unbacked.yaml"}, []string{"IST0173"}},
		{[]string{"crd-version.yaml", "vs-subsets.yaml"}, []string{"IST0176"}},
	} {
		t.Run(strings.Join(tc.files, "+"), func(t *testing.T) {
			var all strings.Builder
			for _, f := range tc.files {
				data, err := os.ReadFile(filepath.Join("../analysis/istio/testdata", f))
				if err != nil {
					t.Fatal(err)
				}
				all.WriteString("---\n")
				all.Write(data)
				all.WriteString("\n")
			}
			set := decodeSet(t, "apps/shop/app.yaml", all.String())
			s, err := Load(Options{Set: set, Executable: func() (string, error) { return filepath.Join(filepath.Dir(plugin), "routeguard"), nil }})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			out, err := analysis.RunAnalyzers(ctx, analysis.RunOptions{Set: set, Analyzers: s.Analyzers()})
			if err != nil || len(s.Failures()) != 0 {
				t.Fatalf("run: %v %v", err, s.Failures())
			}
			in, err := analysis.RunAnalyzers(ctx, analysis.RunOptions{Set: set, Analyzers: []analysis.Analyzer{istio.Analyzers{}}})
			if err != nil {
				t.Fatal(err)
			}
			for _, code := range tc.want {
				if !slices.ContainsFunc(out.Findings, func(f analysis.Finding) bool { return f.Code == code }) {
					t.Errorf("no %s through the plugin: %v", code, codesOf(out.Findings))
				}
			}
			if !slices.EqualFunc(out.Findings, in.Findings, analysis.Finding.Same) {
				t.Fatalf("plugin and in-process findings differ:\nplugin     %+v\nin-process %+v", out.Findings, in.Findings)
			}
		})
	}
}
