package routediff

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestManifestReview: --diff=both adds the manifest diff of the same
// builds beside the routing review, --diff=manifests shows it alone, and
// the default shows and computes none of it.
func TestManifestReview(t *testing.T) {
	dir := repoWithChange(t, map[string]string{
		"apps/shop/routes.yaml": edit(t, "apps/shop/routes.yaml", "weight: 90", "weight: 50", "weight: 10", "weight: 50"),
	})
	review := func(v Review) (*Result, string, string, string) {
		t.Helper()
		res, err := Compare(context.Background(), Options{Dir: dir, Base: "HEAD~1", Head: "HEAD", Paths: appPaths,
			TempDir: t.TempDir(), Analyze: analyze, Review: v})
		if err != nil {
			t.Fatal(err)
		}
		var txt, md, js bytes.Buffer
		if err := res.WriteText(&txt); err != nil {
			t.Fatal(err)
		}
		if err := res.WriteMarkdown(&md); err != nil {
			t.Fatal(err)
		}
		if err := res.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		return res, txt.String(), md.String(), js.String()
	}
	res, txt, md, js := review(ReviewRouting)
	if res.Manifests != nil || strings.Contains(txt, "Manifest diff") || strings.Contains(md, "Manifest diff") || strings.Contains(js, `"manifests"`) {
		t.Errorf("the default review has a manifest diff")
	}
	res, txt, md, js = review(ReviewBoth)
	if res.Manifests == nil || !res.Manifests.Changed() || !res.Changed() {
		t.Fatalf("--diff=both: no manifest change found")
	}
	a := res.Manifests.Apps
	if len(a) != 1 || a[0].App.Kind != "path" || a[0].App.Name != "apps/shop" || a[0].Objects[0].Kind != "HTTPRoute" {
		t.Errorf("manifest apps %+v", a)
	}
	for _, want := range []string{"Routes (", "Manifest diff: 1 object changed in 1 app", "-      weight: 90", "+      weight: 50"} {
		if !strings.Contains(txt, want) {
			t.Errorf("--diff=both text has no %q:\n%s", want, txt)
		}
	}
	if !strings.Contains(md, "#### Routes") || !strings.Contains(md, "<details><summary><code>path apps/shop</code>") {
		t.Errorf("--diff=both comment lacks a review:\n%s", md)
	}
	var doc struct {
		Routing   any `json:"routing"`
		Manifests struct {
			Changed bool `json:"changed"`
			Apps    []struct {
				Objects []struct {
					Hunks []struct{ Lines []string }
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || doc.Routing == nil || !doc.Manifests.Changed || len(doc.Manifests.Apps[0].Objects[0].Hunks) == 0 {
		t.Errorf("--diff=both JSON: %v\n%s", err, js)
	}
	res, txt, md, js = review(ReviewManifests)
	if strings.Contains(txt, "Routes (") || strings.Contains(md, "#### Routes") || strings.Contains(js, `"routing"`) {
		t.Errorf("--diff=manifests shows the routing review")
	}
	if !strings.Contains(txt, "+      weight: 50") || !strings.HasPrefix(md, Marker+"\n### routeguard: manifest review") || !strings.Contains(js, `"manifestsComparedFully": true`) {
		t.Errorf("--diff=manifests:\n%s\n%s\n%s", txt, md, js)
	}
	if _, err := Compare(context.Background(), Options{Dir: dir, Paths: appPaths, Analyze: analyze, Review: "all"}); err == nil || !strings.Contains(err.Error(), "--diff must be routing, manifests, both") {
		t.Errorf("--diff=all: %v", err)
	}
}
