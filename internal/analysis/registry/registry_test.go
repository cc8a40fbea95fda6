package registry

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/analysistest"
	"github.com/routeguard/routeguard/internal/manifest"
)

var nameRE = regexp.MustCompile(`^[a-z]+\.[A-Z][A-Za-z]+$`)

func TestAnalyzersDescribed(t *testing.T) {
	all := All()
	if len(all) < 15 {
		t.Fatalf("only %d analyzers registered", len(all))
	}
	seen := map[string]bool{}
	prev := ""
	for _, a := range all {
		md := a.Metadata()
		if !nameRE.MatchString(md.Name) {
			t.Errorf("analyzer name %q is not <pkg>.<Type>", md.Name)
		}
		if seen[md.Name] {
			t.Errorf("analyzer name %q used twice", md.Name)
		}
		seen[md.Name] = true
		if md.Name < prev {
			t.Errorf("All() is not sorted: %s after %s", md.Name, prev)
		}
		prev = md.Name
		if len(md.Description) < 20 || !strings.HasSuffix(md.Description, ".") {
			t.Errorf("analyzer %s: description %q is not a sentence", md.Name, md.Description)
		}
		if len(md.Inputs) == 0 {
			t.Errorf("analyzer %s declares no input kinds", md.Name)
		}
	}
	for _, want := range []string{"gatewayapi.ParentRefs", "gatewayapi.BackendRefs", "gatewayapi.Listeners",
		"gatewayapi.RouteConflicts", "ingress.Backends", "ingress.Class", "ingress.DuplicatePaths", "ingress.TLSHosts",
		"istioroutes.Subsets", "istioroutes.Weights", "policy.CRDOrdering", "policy.Images", "policy.PlainSecrets",
		"schema.EmptySpecs", "validation.APIVersions", "validation.BuiltinKinds", "validation.CustomResources"} {
		if !seen[want] {
			t.Errorf("analyzer %s is not registered", want)
		}
	}
}

// TestCodesUsed checks that every catalog code appears in some analyzer's
// source, the analysis package's own findings, the Flux tree build's, the
// Argo CD project rules' or the actions' (RG0010 of a render, RG0109 of a
// Flux build); an unused code is a catalog entry nothing can report.
func TestCodesUsed(t *testing.T) {
	var srcs []string
	for _, g := range []string{"../*/*.go", "../*.go", "../../flux/*.go", "../../action/*.go", "../../argocd/project/*.go"} {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, m...)
	}
	var all strings.Builder
	for _, s := range srcs {
		if strings.HasSuffix(s, "codes.go") {
			continue
		}
		if strings.HasSuffix(s, "_test.go") || strings.Contains(s, "/istio/") {
			continue
		}
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	code := all.String()
	for _, c := range analysis.Catalog() {
		if c.Retired {
			continue // retired codes stay in the catalog, reported by nothing
		}
		name := constName(t, c.ID)
		if !strings.Contains(code, "analysis."+name) && !strings.Contains(code, name+",") {
			t.Errorf("code %s (%s) is reported by no analyzer", c.ID, name)
		}
	}
}

// constName finds the Go constant naming a code in codes.go.
func constName(t *testing.T, id string) string {
	t.Helper()
	b, err := os.ReadFile("../codes.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(Code\w+)\s*=\s*"` + id + `"`).FindStringSubmatch(string(b))
	if m == nil {
		t.Fatalf("code %s has no constant", id)
	}
	return m[1]
}

// TestEveryFixtureThroughEveryAnalyzer feeds every analyzer every testdata
// file of every analyzer package: no panic, no internal error, and every
// finding carries a catalog code, a message and a file:line.
func TestEveryFixtureThroughEveryAnalyzer(t *testing.T) {
	files, err := filepath.Glob("../*/testdata/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 40 {
		t.Fatalf("found only %d fixtures", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := manifest.Decode(f, data)
		if err != nil {
			continue // not decodable as a stream at all: the decoder's error names file:line
		}
		s := manifest.NewSet()
		if err := s.AddAll(objs); err != nil {
			t.Fatal(err)
		}
		res, err := analysis.RunAnalyzers(context.Background(), analysis.RunOptions{Set: s, ContextSet: s, Analyzers: All()})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		res2, err := analysis.RunAnalyzers(context.Background(), analysis.RunOptions{Set: s, Analyzers: All()})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		for _, fd := range append(res.Findings, res2.Findings...) {
			if fd.Message == "" || fd.Source.File != f || fd.Source.Line == 0 || fd.Analyzer == "" {
				t.Errorf("%s: finding %s %s lacks message, file:line or analyzer: %+v", f, fd.Code, fd.Object, fd)
			}
			if strings.Contains(fd.Message, "%!") {
				t.Errorf("%s: finding %s %s: its message template got the wrong arguments: %s", f, fd.Code, fd.Object, fd.Message)
			}
		}
	}
}

// TestFixtures runs every fixture that declares its own case in its header
// (analysistest.Fixture), in every analyzer package: a new case is one file.
func TestFixtures(t *testing.T) {
	analysistest.RunFixtures(t, "../*/testdata/*.yaml", All()...)
}
