package apiserver

import (
	"context"
	"testing"

	"github.com/routeguard/routeguard/internal/crds"
	"github.com/routeguard/routeguard/internal/manifest"
)

// freshBundled parses a bundled CRD anew: the bundled ones are shared by
// the process, and these tests watch what one CRD compiles.
func freshBundled(t *testing.T, group, kind string) *CRD {
	t.Helper()
	e := crds.Bundled().Find(group, kind)[0]
	data, err := crds.Read(e)
	if err != nil {
		t.Fatal(err)
	}
	c, err := parseCRDJSON(data, "test")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func decodeBody(t *testing.T, doc string) map[string]any {
	t.Helper()
	objs, err := manifest.Decode("test.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return objs[0].Body
}

// nodeAt is the rule tree's node at path ("[]" for items, "*" for map values).
func nodeAt(t *testing.T, tree *ruleTree, path ...string) *ruleTree {
	t.Helper()
	n := tree
	for _, p := range path {
		switch p {
		case "[]":
			n = n.items
		case "*":
			n = n.addl
		default:
			n = n.props[p]
		}
		if n == nil {
			t.Fatalf("no rules below %v", path)
		}
	}
	return n
}

// TestRulesCompiledAsReached: a version compiles the rules of the nodes
// its objects reach, nodes that defaulting fills in included; an object
// that reaches further gets those rules compiled before it is validated,
// and its violations are upstream's.
func TestRulesCompiledAsReached(t *testing.T) {
	c := freshBundled(t, "gateway.networking.k8s.io", "HTTPRoute")
	plain := `{apiVersion: gateway.networking.k8s.io/v1, kind: HTTPRoute, metadata: {name: r, namespace: apps},
		spec: {parentRefs: [{name: public}], rules: [{backendRefs: [{name: svc, port: 80}]}]}}`
	if err := c.Compile("v1", decodeBody(t, plain)); err != nil {
		t.Fatal(err)
	}
	cv, err := c.compile("v1")
	if err != nil {
		t.Fatal(err)
	}
	first := cv.rules.latest.Load()
	if first == nil {
		t.Fatal("Compile with objects compiled no rules")
	}
	if n := first.have.count(); n == 0 || n >= cv.rules.nodes/2 {
		t.Fatalf("a plain route compiled the rules of %d of %d nodes; want a few", n, cv.rules.nodes)
	}
	// matches is not set: the default ({path: {type: PathPrefix, value: /}})
	// creates it, and its rules run in the API server.
	path := nodeAt(t, cv.rules.tree, "spec", "rules", "[]", "matches", "[]", "path")
	if !first.have.has(path.id) {
		t.Error("the rules of matches[].path, which defaulting fills in, were not compiled")
	}
	filters := nodeAt(t, cv.rules.tree, "spec", "rules", "[]", "filters", "[]")
	if first.have.has(filters.id) {
		t.Error("the rules of filters[], which no object sets, were compiled")
	}

	res, err := validateCompared(t, c, "v1", "apps", decodeBody(t, plain))
	if err != nil || len(res.Violations) > 0 {
		t.Fatalf("plain route: %v %v", res, err)
	}
	if cv.rules.latest.Load() != first {
		t.Error("validating the object Compile was given compiled again: the prediction missed what it reaches")
	}

	wrongFilter := `{apiVersion: gateway.networking.k8s.io/v1, kind: HTTPRoute, metadata: {name: r, namespace: apps},
		spec: {parentRefs: [{name: public}], rules: [{filters: [{type: ResponseHeaderModifier, requestHeaderModifier: {remove: [X-Debug]}}],
		backendRefs: [{name: svc, port: 80}]}]}}`
	res, err = validateCompared(t, c, "v1", "apps", decodeBody(t, wrongFilter))
	if err != nil {
		t.Fatal(err)
	}
	if !hasRule(res, "filter.requestHeaderModifier must be nil if the filter.type is not RequestHeaderModifier") {
		t.Errorf("a filter's rule did not run on the object that first sets a filter: %v", res.Violations)
	}
	grown := cv.rules.latest.Load()
	if !grown.have.has(filters.id) || !grown.have.covers(first.have) {
		t.Error("the rules compiled for the filter object do not cover filters[] and what was compiled before")
	}
}

// TestRulesPredictionCovers: for the synthetic repository's custom
// resources and the cases of the rule tests, what Compile predicts from
// an object as written covers what the object reaches once pruned and
// defaulted (else every run would compile twice).
func TestRulesPredictionCovers(t *testing.T) {
	jobs := syntheticCustomResources(t, 2000)
	checked := 0
	for _, j := range jobs {
		cv, err := j.crd.compile(j.o.Version())
		if err != nil {
			t.Fatal(err)
		}
		if cv.rules == nil {
			continue
		}
		predicted := newRuleSet(cv.rules.nodes)
		cv.rules.tree.reachBeforeDefaults(j.o.Body, predicted)
		u := preparedForRules(t, j.crd, cv, j.o.Body)
		exact := newRuleSet(cv.rules.nodes)
		cv.rules.tree.reach(u, exact)
		if !predicted.covers(exact) {
			t.Errorf("%s %s: the prediction misses nodes the object reaches", j.o.Kind, j.o.Name)
		}
		checked++
	}
	if checked < 500 {
		t.Fatalf("only %d objects with rules checked", checked)
	}
}

// preparedForRules is body as the CEL rules see it: pruned and defaulted.
func preparedForRules(t *testing.T, c *CRD, cv *compiled, body map[string]any) map[string]any {
	t.Helper()
	u, _, err := c.prepare(context.Background(), cv, "ns", body, &Result{})
	if err != nil || u == nil {
		t.Fatalf("preparing the object: %v", err)
	}
	return u
}

// TestRulesAllAfterGrowing: a version that keeps meeting objects that
// reach further compiles every rule after fullAfter compilations.
func TestRulesAllAfterGrowing(t *testing.T) {
	c := freshBundled(t, "gateway.networking.k8s.io", "HTTPRoute")
	cv, err := c.compile("v1")
	if err != nil {
		t.Fatal(err)
	}
	// Objects that each reach one more node than all before them.
	for i := range fullAfter + 1 {
		need := newRuleSet(cv.rules.nodes)
		need.add(i)
		got := cv.rules.rulesFor(need)
		full := got.have.count() == cv.rules.nodes
		if want := i >= fullAfter; full != want {
			t.Errorf("after %d compilations: every rule compiled = %v, want %v", i+1, full, want)
		}
		if !got.have.has(i) {
			t.Errorf("compilation %d lacks the node it was asked for", i+1)
		}
	}
}
