package crds_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/crds"
	"github.com/routeguard/routeguard/internal/crds/bundle"
)

// TestBundleMatchesModuleCache rebuilds the bundle from the module cache
// (the versions go.mod requires) and fails when the embedded copy differs:
// run `go generate ./internal/crds` after changing those versions.
func TestBundleMatchesModuleCache(t *testing.T) {
	srcs, err := bundle.Locate(".")
	if err != nil {
		t.Fatal(err)
	}
	defer srcs.Close()
	gw, istio := srcs.GatewayAPI, srcs.Istio
	want, err := bundle.Build(srcs)
	if err != nil {
		t.Fatal(err)
	}
	idx := crds.Bundled()
	if idx.GatewayAPIVersion != gw.Version || idx.IstioVersion != istio.Version {
		t.Errorf("bundle is of Gateway API %s and Istio %s, go.mod requires %s and %s; run go generate ./internal/crds",
			idx.GatewayAPIVersion, idx.IstioVersion, gw.Version, istio.Version)
	}
	got := map[string][]byte{}
	for _, e := range idx.CRDs {
		data, err := crds.Read(e)
		if err != nil {
			t.Fatal(err)
		}
		got[e.File] = data
	}
	embeddedIndex, err := crds.IndexJSON()
	if err != nil {
		t.Fatal(err)
	}
	got[crds.IndexFile] = embeddedIndex
	for name, w := range want {
		if !bytes.Equal(got[name], w) {
			t.Errorf("%s drifted from the module cache (or is missing); run go generate ./internal/crds", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s is bundled but no longer upstream; run go generate ./internal/crds", name)
		}
	}
	files, err := crds.Files()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(want) {
		t.Errorf("the bundle holds %d files, the index and upstream %d: %v", len(files), len(want), files)
	}
}

func TestBundledKinds(t *testing.T) {
	idx := crds.Bundled()
	for _, tc := range []struct {
		group, kind string
		channels    []string
	}{
		{"gateway.networking.k8s.io", "HTTPRoute", []string{"standard", "experimental"}},
		{"gateway.networking.k8s.io", "ListenerSet", []string{"standard", "experimental"}},
		{"gateway.networking.x-k8s.io", "XBackendTrafficPolicy", []string{"experimental"}},
		{"networking.istio.io", "VirtualService", []string{""}},
		{"security.istio.io", "AuthorizationPolicy", []string{""}},
		{"kustomize.toolkit.fluxcd.io", "Kustomization", []string{""}},
		{"helm.toolkit.fluxcd.io", "HelmRelease", []string{""}},
		{"source.toolkit.fluxcd.io", "OCIRepository", []string{""}},
		{"notification.toolkit.fluxcd.io", "Alert", []string{""}},
		{"source.extensions.fluxcd.io", "ArtifactGenerator", []string{""}},
		{"argoproj.io", "Application", []string{""}},
		{"argoproj.io", "ApplicationSet", []string{""}},
		{"argoproj.io", "AppProject", []string{""}},
	} {
		es := idx.Find(tc.group, tc.kind)
		var chans []string
		for _, e := range es {
			chans = append(chans, e.Channel)
			data, err := crds.Read(e)
			if err != nil || !bytes.Contains(data, []byte(`"kind":"`+tc.kind+`"`)) {
				t.Errorf("%s: %v", e.File, err)
			}
		}
		if strings.Join(chans, ",") != strings.Join(tc.channels, ",") {
			t.Errorf("%s %s: channels %v, want %v", tc.group, tc.kind, chans, tc.channels)
		}
	}
	if got := idx.Origin(idx.Find("helm.toolkit.fluxcd.io", "HelmRelease")[0]); got != "Flux CRD (helm-controller v1.6.5, bundled)" {
		t.Errorf("origin %q", got)
	}
	if got := idx.Origin(idx.Find("argoproj.io", "Application")[0]); got != "Argo CD v3.5.7 CRD (bundled)" {
		t.Errorf("origin %q", got)
	}
	if !strings.Contains(idx.Origin(idx.Find("gateway.networking.k8s.io", "Gateway")[0]), "Gateway API v1.6.3 CRD (standard channel") {
		t.Errorf("origin %q", idx.Origin(idx.Find("gateway.networking.k8s.io", "Gateway")[0]))
	}
}
