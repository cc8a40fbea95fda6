package apiserver

import (
	"reflect"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/crds"
	"github.com/routeguard/routeguard/internal/manifest"
)

func crdObject(t *testing.T, file, group, kind, version string) *manifest.Object {
	t.Helper()
	doc := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ` + strings.ToLower(kind) + `s.` + group + `}
spec:
  group: ` + group + `
  scope: Namespaced
  names: {kind: ` + kind + `, plural: ` + strings.ToLower(kind) + `s}
  versions: [{name: ` + version + `, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]
`
	objs, err := manifest.Decode(file, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return objs[0]
}

func TestCatalogPrecedence(t *testing.T) {
	gw := "gateway.networking.k8s.io"
	app := crdObject(t, "app.yaml", gw, "HTTPRoute", "v9")
	ctx := crdObject(t, "context.yaml", gw, "HTTPRoute", "v8")
	cluster := crdObject(t, "cluster.yaml", gw, "HTTPRoute", "v7")
	only := crdObject(t, "cluster.yaml", "example.com", "Widget", "v1")
	for _, tc := range []struct {
		name    string
		opts    CatalogOptions
		group   string
		kind    string
		origins []string
	}{
		{"the app's CRD first", CatalogOptions{App: []*manifest.Object{app}, Context: []*manifest.Object{ctx}, Cluster: []*manifest.Object{cluster}}, gw, "HTTPRoute", []string{"rendered with the app, app.yaml"}},
		{"then a context path's", CatalogOptions{Context: []*manifest.Object{ctx}, Cluster: []*manifest.Object{cluster}}, gw, "HTTPRoute", []string{"rendered by a context path, context.yaml"}},
		{"then the cluster's", CatalogOptions{Cluster: []*manifest.Object{cluster, only}}, gw, "HTTPRoute", []string{"--crd-dir, cluster.yaml"}},
		{"then the bundled, both channels", CatalogOptions{}, gw, "HTTPRoute", []string{"standard channel, bundled", "experimental channel, bundled"}},
		{"one channel", CatalogOptions{GatewayAPIChannel: "experimental"}, gw, "HTTPRoute", []string{"experimental channel, bundled"}},
		{"Istio", CatalogOptions{GatewayAPIChannel: "standard"}, "networking.istio.io", "VirtualService", []string{"Istio CRD (istio.io/istio"}},
		{"nothing", CatalogOptions{Cluster: []*manifest.Object{cluster}}, "example.com", "Gadget", nil},
	} {
		cands := NewCatalog(tc.opts).Lookup(tc.group, tc.kind)
		if len(cands) != len(tc.origins) {
			t.Errorf("%s: %d candidates, want %d", tc.name, len(cands), len(tc.origins))
			continue
		}
		for i, c := range cands {
			if c.Err != nil || !strings.Contains(c.Origin, tc.origins[i]) {
				t.Errorf("%s: candidate %d from %q (%v), want %q", tc.name, i, c.Origin, c.Err, tc.origins[i])
			}
		}
	}
}

// TestBundledJSONDecodes: the bundled CRDs (JSON, internal/crds) parse to
// the same CRD through the API server's JSON decoding as through
// routeguard's manifest decoding, which is how they were read when the
// bundle held YAML: defaults, enums and numbers come out alike.
func TestBundledJSONDecodes(t *testing.T) {
	idx := crds.Bundled()
	for _, e := range idx.CRDs {
		data, err := crds.Read(e)
		if err != nil {
			t.Fatal(err)
		}
		fromJSON, err := parseCRDJSON(data, "bundled")
		if err != nil {
			t.Fatalf("%s: %v", e.File, err)
		}
		objs, err := manifest.Decode(e.File, data)
		if err != nil {
			t.Fatalf("%s: %v", e.File, err)
		}
		fromManifest, err := ParseCRD(objs[0].Body, "bundled")
		if err != nil {
			t.Fatalf("%s: %v", e.File, err)
		}
		jv1, _ := fromJSON.v1()
		mv1, _ := fromManifest.v1()
		if !reflect.DeepEqual(jv1, mv1) || !reflect.DeepEqual(fromJSON.Versions, fromManifest.Versions) {
			t.Errorf("%s: the JSON decoding differs from the manifest decoding", e.File)
		}
	}
}

// TestBundledDecodedLazily: a bundled CRD as the catalog reads it (its
// head now, the rest when it is compiled) is the CRD parsed whole: names,
// scope, versions and, once decoded, the whole definition; its digest is
// its bytes' and differs between CRDs.
func TestBundledDecodedLazily(t *testing.T) {
	idx := crds.Bundled()
	digests := map[string]string{}
	for _, e := range idx.CRDs {
		data, err := crds.Read(e)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := parseCRDJSON(data, "bundled")
		if err != nil {
			t.Fatalf("%s: %v", e.File, err)
		}
		lazy, err := bundledCRDJSON(data, "bundled")
		if err != nil {
			t.Fatalf("%s: %v", e.File, err)
		}
		if lazy.Group != whole.Group || lazy.Kind != whole.Kind || lazy.Plural != whole.Plural || lazy.Scope != whole.Scope ||
			!reflect.DeepEqual(lazy.Versions, whole.Versions) || !reflect.DeepEqual(lazy.compiled, whole.compiled) {
			t.Errorf("%s: the head differs from the whole CRD: %+v, want %+v", e.File, lazy, whole)
		}
		lv1, err := lazy.v1()
		wv1, _ := whole.v1()
		if err != nil || !reflect.DeepEqual(lv1, wv1) {
			t.Errorf("%s: decoded lazily, the CRD differs from the one parsed whole (%v)", e.File, err)
		}
		if other, seen := digests[lazy.Digest()]; seen {
			t.Errorf("%s and %s share the digest %s", e.File, other, lazy.Digest())
		}
		digests[lazy.Digest()] = e.File
	}
	// A head that does not decode gives parseCRDJSON's error.
	if _, err := bundledCRDJSON([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","spec":{"versions":3}}`), "broken"); err == nil || !strings.Contains(err.Error(), "broken: CustomResourceDefinition does not decode") {
		t.Errorf("broken head: %v", err)
	}
}
