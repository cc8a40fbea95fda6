package precision

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/test/harness"
)

// gitFixture commits testdata/<name> as a repository's only commit (the
// base of a review) and returns its directory; the work tree is the head.
func gitFixture(t *testing.T, name string) string {
	t.Helper()
	dir := fixture(t, name)
	if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
		t.Fatal(err)
	}
	harness.CommitAll(t, dir)
	return dir
}

func write(t *testing.T, dir, file, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A pull request on a Flux tree: it adds a route to shop (a Kustomization
// that builds at neither revision), adds a route to a Gateway that lives in
// another repository's Kustomization (not built), and removes the legacy
// route, whose backend was missing. The review said "no routing change"
// (exit 0) for the first alone, listed the new route as detached ("does not
// exist") while the findings said it cannot be checked, and counted the
// legacy route's finding as fixed. It now says what was not built at each
// revision, with the routing it holds, in every format.
func TestReviewSaysWhatWasNotBuilt(t *testing.T) {
	t.Parallel()
	dir := gitFixture(t, "flux-review")
	write(t, dir, "shop/route.yaml", strings.Replace(mustRead(t, dir, "shop/route.yaml"), "shop.example.com", "shop.example.org", 1))

	r := routeguard(t, dir, "flux", "diff", "--base", "HEAD", "clusters/home")
	if r.code != 1 {
		t.Fatalf("shop's change alone: exit %d, want 1 (routing not fully compared)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	contains(t, "text review", r.stdout, "routing objects checked: 2 at base, 2 at head", "routing not fully compared: no change among what was built; not built: 2 at head, 2 at base",
		"Not built, so not compared", "Kustomization flux-system/shop (not built)", "shop/route.yaml", "Kustomization flux-system/infra (not built)")
	lacks(t, "text review", r.stdout, "no routing change\n")

	write(t, dir, "apps/web/web2.yaml", `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web2, namespace: web}
spec:
  parentRefs: [{name: edge, namespace: network}]
  hostnames: [web2.example.com]
  rules: [{backendRefs: [{name: web, port: 80}]}]
`)
	if err := os.Remove(filepath.Join(dir, "apps/web/legacy.yaml")); err != nil {
		t.Fatal(err)
	}
	r = routeguard(t, dir, "flux", "diff", "--base", "HEAD", "clusters/home")
	att := lines(r.stdout, "HTTPRoute web/web2", "Gateway network/edge")
	if len(att) == 0 {
		t.Fatalf("no attachment row for web2:\n%s", r.stdout)
	}
	contains(t, "attachment", strings.Join(att, "\n"), "unknown", "cannot be checked", "Kustomization flux-system/infra")
	lacks(t, "attachment", strings.Join(att, "\n"), "detached", "does not exist")
	contains(t, "text review", r.stdout, "Findings gone with their removed objects (not fixed)")
	lacks(t, "text review", r.stdout, "Findings fixed")

	for _, format := range []string{"markdown", "json"} {
		r = routeguard(t, dir, "flux", "diff", "--base", "HEAD", "-o", format, "clusters/home")
		if format == "json" {
			var doc struct {
				RoutingComparedFully bool
				NotBuilt             []struct{ Revision, What string }
				Fixed                []any `json:"findingsFixed"`
				Removed              []any `json:"findingsOfRemovedObjects"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
				t.Fatalf("json: %v\n%s", err, r.stdout)
			}
			if doc.RoutingComparedFully || len(doc.NotBuilt) != 4 || len(doc.Fixed) != 0 || len(doc.Removed) != 2 {
				t.Errorf("json: %+v", doc)
			}
			continue
		}
		contains(t, format, r.stdout, "Not built, so not compared", "not built", "Kustomization flux-system/shop")
	}
}

func mustRead(t *testing.T, dir, file string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
