package install

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestBundledCRDsAreArgoCDs: the Argo CD CRDs routeguard bundles
// (internal/crds/bundled/argocd, written by `go generate ./internal/crds` in
// the main module, which cannot depend on Argo CD) are those of the release
// this module builds against: the index names that version, and each
// bundled CRD equals the module's manifests/crds file without the
// descriptions of its schemas (what the bundle leaves out).
func TestBundledCRDsAreArgoCDs(t *testing.T) {
	dir, version := argoCD(t)
	bundled := filepath.Join(mainRoot, "internal", "crds", "bundled")
	raw, err := os.ReadFile(filepath.Join(bundled, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx struct {
		Modules map[string]string `json:"modules"`
		CRDs    []struct{ Source, Module, Group, Kind, Plural, File string }
	}
	if err := json.Unmarshal(raw, &idx); err != nil {
		t.Fatal(err)
	}
	if got := idx.Modules["github.com/argoproj/argo-cd/v3"]; got != version {
		t.Fatalf("the bundle's Argo CD CRDs are of %q, this module builds %s: set bundle.ArgoCDVersion and run go generate ./internal/crds", got, version)
	}
	files, err := filepath.Glob(filepath.Join(dir, "manifests", "crds", "*-crd.yaml"))
	if err != nil || len(files) != 3 {
		t.Fatalf("Argo CD's manifests/crds: %v %v", files, err)
	}
	seen := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var upstream map[string]any
		if err := yaml.Unmarshal(data, &upstream); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		spec := upstream["spec"].(map[string]any)
		names := spec["names"].(map[string]any)
		file := "argocd/" + names["plural"].(string) + "." + spec["group"].(string) + ".json"
		for _, v := range spec["versions"].([]any) {
			if s, ok := v.(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any); ok {
				dropDescriptions(s)
			}
		}
		gz, err := os.ReadFile(filepath.Join(bundled, filepath.FromSlash(file)+".gz"))
		if err != nil {
			t.Errorf("%s is not bundled: %v", file, err)
			continue
		}
		r, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatal(err)
		}
		plain, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		var ours map[string]any
		if err := json.Unmarshal(plain, &ours); err != nil {
			t.Fatal(err)
		}
		// Both through JSON, so that numbers and empty values compare alike.
		var want map[string]any
		b, _ := json.Marshal(upstream)
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ours, want) {
			t.Errorf("%s differs from %s of argo-cd %s; run go generate ./internal/crds", file, filepath.Base(f), version)
		}
		seen++
	}
	n := 0
	for _, e := range idx.CRDs {
		if e.Source == "argocd" && strings.HasPrefix(e.File, "argocd/") {
			n++
		}
	}
	if n != seen {
		t.Errorf("the index lists %d Argo CD CRDs, the module has %d", n, seen)
	}
}

// dropDescriptions removes "description" from a schema and the schemas in
// it, as the bundle does (internal/crds/bundle/compact.go); a property named
// description stays.
func dropDescriptions(s map[string]any) {
	delete(s, "description")
	for _, key := range []string{"properties", "patternProperties", "definitions"} {
		if m, ok := s[key].(map[string]any); ok {
			for _, sub := range m {
				if sub, ok := sub.(map[string]any); ok {
					dropDescriptions(sub)
				}
			}
		}
	}
	for _, key := range []string{"items", "additionalProperties", "additionalItems", "not"} {
		switch sub := s[key].(type) {
		case map[string]any:
			dropDescriptions(sub)
		case []any:
			for _, x := range sub {
				if x, ok := x.(map[string]any); ok {
					dropDescriptions(x)
				}
			}
		}
	}
	for _, key := range []string{"allOf", "anyOf", "oneOf"} {
		if l, ok := s[key].([]any); ok {
			for _, x := range l {
				if x, ok := x.(map[string]any); ok {
					dropDescriptions(x)
				}
			}
		}
	}
	if deps, ok := s["dependencies"].(map[string]any); ok {
		for _, d := range deps {
			if d, ok := d.(map[string]any); ok {
				dropDescriptions(d)
			}
		}
	}
}
