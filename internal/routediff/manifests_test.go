package routediff

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/manifestdiff"
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

// hostileManifests is a manifest review of n apps, each with objects
// named name and data lines holding it.
func hostileManifests(t *testing.T, name string, n int) *manifestdiff.Result {
	t.Helper()
	var base, head []manifestdiff.Group
	for i := range n {
		id := fmt.Sprintf("%s-%d", name, i)
		app := manifestdiff.App{Kind: "Application", Name: "argocd/" + id}
		for side, v := range []string{"old", "new"} {
			o := &manifest.Object{APIVersion: "v1", Kind: "ConfigMap", Namespace: id, Name: id, Body: map[string]any{
				"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": id, "namespace": id},
				"data": map[string]any{"k": id + " " + v, "fence": "``````` " + id}}}
			g := manifestdiff.Group{App: app, Objects: []*manifest.Object{o}}
			if side == 0 {
				base = append(base, g)
			} else {
				head = append(head, g)
			}
		}
	}
	res, err := manifestdiff.Compare(manifestdiff.Input{Base: base, Head: head}, manifestdiff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// ourManifestTags are the tags the manifest review writes.
var ourManifestTags = regexp.MustCompile(`<!-- routeguard-diff -->|</?code>|<details( open)?>|</details>|</?summary>|→`)

// TestManifestMarkdownHostile: with the routing review or alone, a
// manifest review of hostile names and many apps stays within the
// comment's budget, its fences whole, its <details> balanced, and nothing
// from the repository is markup outside the code blocks.
func TestManifestMarkdownHostile(t *testing.T) {
	for _, name := range hostileNames {
		for _, n := range []int{1, 10, 120} {
			for _, review := range []Review{ReviewBoth, ReviewManifests} {
				res := hostileResult(name, n)
				res.Review, res.Manifests = review, hostileManifests(t, name, n)
				var b bytes.Buffer
				if err := res.WriteMarkdown(&b); err != nil {
					t.Fatalf("%.40q × %d %s: %v", name, n, review, err)
				}
				md := b.String()
				if len(md) > MaxMarkdown || !strings.HasPrefix(md, Marker+"\n") {
					t.Fatalf("%.40q × %d %s: %d bytes, or no marker first", name, n, review, len(md))
				}
				if !strings.Contains(md, "### Manifest diff") {
					t.Errorf("%.40q × %d %s: the manifest review is neither shown nor counted", name, n, review)
				}
				fence := ""
				open, closed := 0, 0
				for _, line := range strings.Split(md, "\n") {
					if fence != "" {
						if line == fence {
							fence = ""
						}
						continue
					}
					if strings.HasPrefix(line, "```") {
						fence = strings.TrimSuffix(strings.TrimSuffix(line, "diff"), "mermaid")
						continue
					}
					open += strings.Count(line, "<details")
					closed += strings.Count(line, "</details>")
					rest := ourManifestTags.ReplaceAllString(strings.TrimPrefix(line, "> "), "")
					for _, bad := range []string{"<", ">", "@", "://", "www.", "\x1b", "\r"} {
						if strings.Contains(rest, bad) {
							t.Errorf("%.40q × %d %s: line %.200q holds %q outside markup of ours", name, n, review, line, bad)
						}
					}
				}
				if fence != "" {
					t.Errorf("%.40q × %d %s: a code block is not closed", name, n, review)
				}
				if open != closed {
					t.Errorf("%.40q × %d %s: %d <details> and %d </details> outside code blocks", name, n, review, open, closed)
				}
			}
		}
	}
}
