package apiserver

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
)

// TestCachedOpenAPIOnRepositoryObjects: every custom resource of the
// examples and the corpus with a bundled CRD, as written and with each
// field of its spec broken (a value of the wrong type, a field removed, an
// unknown field added), validates the same with the kept validators (the
// node validating its declared properties itself) as with kube-openapi's
// own (validateCompared).
func TestCachedOpenAPIOnRepositoryObjects(t *testing.T) {
	cat := NewCatalog(CatalogOptions{})
	var objs []*manifest.Object
	for _, root := range []string{"../../examples", "../../test/corpus"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			decoded, err := manifest.Decode(path, data)
			if err != nil {
				return nil // templates, values files: not manifests
			}
			objs = append(objs, decoded...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	checked, broken := 0, 0
	for _, o := range objs {
		cands := cat.Lookup(o.Group(), o.Kind)
		if len(cands) == 0 || cands[0].CRD == nil {
			continue
		}
		crd := cands[0].CRD
		if v, ok := crd.Version(o.Version()); !ok || !v.Served {
			continue
		}
		res, err := validateCompared(t, crd, o.Version(), "apps", o.Body)
		if err != nil {
			continue // an uncompilable version: RG5008, not this test's
		}
		checked++
		spec, _ := o.Body["spec"].(map[string]any)
		for key := range spec {
			for _, mutate := range []func(map[string]any){
				func(s map[string]any) { s[key] = 42 },
				func(s map[string]any) { s[key] = map[string]any{"routeguardUnknown": []any{"x"}} },
				func(s map[string]any) { s[key] = []any{"x", map[string]any{}} },
				func(s map[string]any) { delete(s, key) },
			} {
				body := deepCopyJSON(o.Body).(map[string]any)
				mutate(body["spec"].(map[string]any))
				mres, err := validateCompared(t, crd, o.Version(), "apps", body)
				if err == nil && len(mres.Violations) > len(res.Violations) {
					broken++
				}
			}
		}
	}
	if checked < 50 || broken < 100 {
		t.Errorf("checked %d objects and %d broken variants that fail validation; want at least 50 and 100", checked, broken)
	}
}
