package registry

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
)

// TestAnalyzersReadOnlyWhatTheyDeclare runs each analyzer over every
// fixture twice: over the whole set, and over only the kinds its Metadata
// declares (plus the Namespaces, and a stub for every other kind in every
// namespace the whole set renders it in, so "which kinds does the app
// render where" stays the same). An analyzer that reads an undeclared kind
// finds something different.
func TestAnalyzersReadOnlyWhatTheyDeclare(t *testing.T) {
	files, err := filepath.Glob("../*/testdata/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range All() {
		md := a.Metadata()
		if dynamicInputs[md.Name] {
			continue
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			objs, err := manifest.Decode(f, data)
			if err != nil {
				continue
			}
			full := manifest.NewSet()
			if err := full.AddAll(objs); err != nil {
				t.Fatal(err)
			}
			want := run(t, a, full)
			got := run(t, a, declaredOnly(t, full, md.Inputs))
			if !slices.Equal(got, want) {
				t.Errorf("%s on %s reads kinds it does not declare:\nwith all kinds:      %v\nwith declared kinds: %v", md.Name, f, want, got)
			}
		}
	}
}

// dynamicInputs are analyzers whose input kinds depend on the set itself:
// policy.CRDOrdering reads the resources of whatever kinds the rendered
// CustomResourceDefinitions define; the validation analyzers read every
// object (each against its own schema).
var dynamicInputs = map[string]bool{"policy.CRDOrdering": true, "validation.APIVersions": true,
	"validation.BuiltinKinds": true, "validation.CustomResources": true}

func run(t *testing.T, a analysis.Analyzer, s *manifest.Set) []string {
	t.Helper()
	res, err := analysis.RunAnalyzers(context.Background(), analysis.RunOptions{Set: s, Analyzers: []analysis.Analyzer{a}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range res.Findings {
		out = append(out, f.Code+" "+f.Object.String()+" "+f.Message)
	}
	return out
}

// declaredOnly keeps the objects of the declared kinds and the Namespaces,
// and stands in a stub for every other (namespace, kind) the full set
// renders: which kinds the app renders where is a fact of the Context
// (it decides dangling against cannot-be-checked), not an input, and must
// stay the same.
func declaredOnly(t *testing.T, full *manifest.Set, inputs []manifest.GroupKind) *manifest.Set {
	t.Helper()
	out := manifest.NewSet()
	type nsKind struct {
		ns         string
		apiVersion string
		kind       string
	}
	stubs := map[nsKind]bool{}
	for _, o := range full.Objects() {
		if slices.Contains(inputs, o.GroupKind()) || (o.Group() == "" && o.Kind == "Namespace") {
			if err := out.Add(o); err != nil {
				t.Fatal(err)
			}
			continue
		}
		stubs[nsKind{o.Namespace, o.APIVersion, o.Kind}] = true
	}
	for k := range stubs {
		md := map[string]any{"name": "routeguard-presence-stub"}
		if k.ns != "" {
			md["namespace"] = k.ns
		}
		o, err := manifest.FromBody(map[string]any{"apiVersion": k.apiVersion, "kind": k.kind, "metadata": md},
			manifest.Source{File: "synthetic", Line: 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, dup := out.Get(o.Key()); dup {
			continue
		}
		if err := out.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
