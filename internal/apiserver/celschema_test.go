package apiserver

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/routeguard/routeguard/internal/crds"
	"github.com/routeguard/routeguard/internal/manifest"
)

// plainCompiled holds versions compiled without the cached schema adaptor,
// per CRD and version, for validateCompared.
var plainCompiled sync.Map // plainKey -> *compiled

type plainKey struct {
	crd     *CRD
	version string
}

// validateCompared validates body with c as routeguard does (the CEL
// rules through the cached schema adaptor, the OpenAPI validators of
// fields and items kept) and exactly as apiextensions ships it, and fails
// the test unless both results are the same. The
// tests of this package validate through it, so every object they hold
// (every Gateway API rule broken and passed, the Istio cases) is also a
// case of the cache.
func validateCompared(t *testing.T, c *CRD, version, namespace string, body map[string]any) (*Result, error) {
	t.Helper()
	res, err := c.ValidateCustomResource(context.Background(), version, namespace, body)
	if err != nil {
		return res, err
	}
	key := plainKey{c, version}
	cv, ok := plainCompiled.Load(key)
	if !ok {
		built, err := c.build(version, false)
		if err != nil {
			t.Fatalf("compiling %s %s without the cache: %v", c.Kind, version, err)
		}
		cv, _ = plainCompiled.LoadOrStore(key, built)
	}
	plain, err := c.validate(context.Background(), cv.(*compiled), namespace, body)
	if err != nil {
		t.Fatalf("%s %s without the cache: %v", c.Kind, version, err)
	}
	if !reflect.DeepEqual(res, plain) {
		t.Errorf("%s %s: caching changes the result:\ncached: %+v\nplain:  %+v", c.Kind, version, res, plain)
	}
	return res, nil
}

// TestCachedSchemaInstalled: every bundled CRD version gets the cached
// OpenAPI validators and, with CEL rules, the cached adaptor (a newer apiextensions that renames what it replaces
// fails here rather than silently costing twice the time).
func TestCachedSchemaInstalled(t *testing.T) {
	idx := crds.Bundled()
	withRules := 0
	for _, e := range idx.CRDs {
		c, err := bundledCRD(idx, e)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range c.ServedVersions() {
			cv, err := c.compile(v)
			if err != nil {
				t.Fatalf("%s %s: %v", e.Kind, v, err)
			}
			if _, ok := cv.schemaValidator.(cachedOpenAPI); !ok {
				t.Errorf("%s %s %s: the OpenAPI validators are not cached", e.Channel, e.Kind, v)
			}
			if cv.rules == nil {
				continue
			}
			withRules++
			if r := cv.rules.compile(cv.rules.all()); !r.cached {
				t.Errorf("%s %s %s: the cached schema adaptor is not installed", e.Channel, e.Kind, v)
			}
		}
	}
	if withRules < 10 {
		t.Errorf("only %d bundled CRD versions have CEL rules", withRules)
	}
}

// TestCachedSchemaPerObject: objects that differ only in fields CEL rules
// read, validated one after the other (and concurrently) by one compiled
// version, each get their own result: the cache holds the schema, never
// an object's values.
func TestCachedSchemaPerObject(t *testing.T) {
	idx := crds.Bundled()
	crd, err := bundledCRD(idx, idx.Find("gateway.networking.k8s.io", "HTTPRoute")[0])
	if err != nil {
		t.Fatal(err)
	}
	route := func(path, filter string) map[string]any {
		doc := fmt.Sprintf(`{apiVersion: gateway.networking.k8s.io/v1, kind: HTTPRoute, metadata: {name: r, namespace: apps},
			spec: {parentRefs: [{name: public}], rules: [{matches: [{path: {type: PathPrefix, value: %q}}],
			filters: [%s], backendRefs: [{name: svc, port: 80}]}]}}`, path, filter)
		objs, err := manifest.Decode("route.yaml", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return objs[0].Body
	}
	modifier := `{type: RequestHeaderModifier, requestHeaderModifier: {remove: [X-Debug]}}`
	cases := []struct {
		name string
		body map[string]any
		want string // a rule's message; "": valid
	}{
		{"valid", route("/shop", ""), ""},
		{"path with //", route("/shop//cart", ""), "must not contain '//'"},
		{"valid again", route("/shop", ""), ""},
		{"filter of its type", route("/shop", modifier), ""},
		{"filter of another type", route("/shop", `{type: ResponseHeaderModifier, requestHeaderModifier: {remove: [X-Debug]}}`),
			"filter.requestHeaderModifier must be nil if the filter.type is not RequestHeaderModifier"},
		{"path with /./", route("/shop/./cart", modifier), "must not contain '/./'"},
		{"valid at last", route("/", modifier), ""},
	}
	check := func(t *testing.T, name string, body map[string]any, want string) {
		res, err := validateCompared(t, crd, "v1", "apps", body)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		if want == "" {
			if len(res.Violations) > 0 {
				t.Errorf("%s: %v", name, res.Violations)
			}
			return
		}
		if !hasRule(res, want) {
			t.Errorf("%s: want the rule %q, got %v", name, want, res.Violations)
		}
	}
	for _, tc := range cases {
		check(t, tc.name, tc.body, tc.want)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range cases {
				tc := cases[(i+j)%len(cases)]
				check(t, tc.name, deepCopyJSON(tc.body).(map[string]any), tc.want)
			}
		}()
	}
	wg.Wait()
}

// TestCachedSynthetic: the custom resources of a synthetic repository
// (one in 200 objects with a dangling reference, which validation does not
// judge) validate the same with and without caching, and clean.
func TestCachedSynthetic(t *testing.T) {
	jobs := syntheticCustomResources(t, 2000)
	if len(jobs) < 1000 {
		t.Fatalf("only %d custom resources", len(jobs))
	}
	for _, j := range jobs {
		res, err := validateCompared(t, j.crd, j.o.Version(), "ns", j.o.Body)
		if err != nil {
			t.Fatalf("%s %s: %v", j.o.Kind, j.o.Name, err)
		}
		if len(res.Violations) > 0 {
			t.Errorf("%s %s: %v", j.o.Kind, j.o.Name, res.Violations)
		}
	}
}

// TestCachedOpenAPIBeyondKept: items past the kept ones and the keys of
// maps (additionalProperties), whose validators are built each time,
// report what upstream reports, at the same paths.
func TestCachedOpenAPIBeyondKept(t *testing.T) {
	idx := crds.Bundled()
	crd, err := bundledCRD(idx, idx.Find("networking.istio.io", "DestinationRule")[0])
	if err != nil {
		t.Fatal(err)
	}
	var subsets []any
	for i := range maxKeptIndex + 8 {
		subset := map[string]any{"name": fmt.Sprintf("s%d", i), "labels": map[string]any{"version": fmt.Sprintf("v%d", i), fmt.Sprintf("k%d", i): "x"}}
		switch i {
		case 3, maxKeptIndex + 5:
			delete(subset, "name")
		case 7, maxKeptIndex + 6:
			subset["labels"].(map[string]any)["track"] = 42
		}
		subsets = append(subsets, subset)
	}
	for round := range 2 { // the second round meets the kept validators
		body := map[string]any{"apiVersion": "networking.istio.io/v1", "kind": "DestinationRule",
			"metadata": map[string]any{"name": "d", "namespace": "apps"}, "spec": map[string]any{"host": "shop", "subsets": subsets}}
		res, err := validateCompared(t, crd, "v1", "apps", body)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range res.Violations {
			got = append(got, v.Field)
		}
		want := []string{"spec.subsets[3].name", fmt.Sprintf("spec.subsets[%d].name", maxKeptIndex+5),
			"spec.subsets[7].labels.track", fmt.Sprintf("spec.subsets[%d].labels.track", maxKeptIndex+6)}
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("round %d: no violation at %s; got %v", round, w, res.Violations)
			}
		}
	}
}
