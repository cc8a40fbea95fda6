package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/test/harness"
)

// examplesRepo commits a copy of examples/ as a repository's only commit;
// edit then changes the work tree (old -> new in file, which must hold
// old), the head of the diffs below.
func examplesRepo(t *testing.T) (dir string, edit func(file, old, new string)) {
	t.Helper()
	dir = t.TempDir()
	copyDir(t, "../../examples", filepath.Join(dir, "examples"))
	harness.CommitAll(t, dir)
	return dir, func(file, old, new string) {
		p := filepath.Join(dir, file)
		data, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(data), old) {
			t.Fatalf("%s lacks %q (%v)", file, old, err)
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(data), old, new)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFluxDiffFollowsSubstitution: a change to a substituteFrom ConfigMap
// of a Flux cluster changes the hostnames of routes in apps it never
// touches; flux diff builds both trees and shows it, with the findings the
// change introduces. Without a change: no routing change, exit 0.
func TestFluxDiffFollowsSubstitution(t *testing.T) {
	dir, edit := examplesRepo(t)
	cluster := "examples/flux/clusters/prod"
	stdout, stderr, code := runIn(t, dir, "flux", "diff", "--base", "HEAD", cluster)
	if code != ExitOK || !strings.Contains(stdout, "no routing change") {
		t.Fatalf("unchanged tree: exit %d\n%s\n%s", code, stdout, stderr)
	}
	edit(cluster+"/cluster-vars.yaml", "cluster_domain: shop.example.com", "cluster_domain: shop.example.org")
	stdout, stderr, code = runIn(t, dir, "flux", "diff", "--base", "HEAD", cluster)
	if code != ExitFindings {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitFindings, stdout, stderr)
	}
	for _, w := range []string{
		"-  Gateway gateway-infra/shop listener https  reviews.shop.example.com",
		"+  Gateway gateway-infra/shop listener https  reviews.shop.example.org",
		"+  error     RG1007  HTTPRoute bookinfo/reviews",
		"~  ConfigMap  1 changed",
	} {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, stdout)
		}
	}
	if strings.Contains(stdout+stderr, os.TempDir()+"/routeguard-diff") {
		t.Errorf("output names the temporary directory:\n%s\n%s", stdout, stderr)
	}
	// --fail-on-new: the introduced RG1007 errors fail it.
	if _, _, code = runIn(t, dir, "flux", "diff", "--base", "HEAD", "--fail-on-new", "error", cluster); code != ExitFindings {
		t.Errorf("--fail-on-new error: exit %d, want %d", code, ExitFindings)
	}
}

// TestArgoCDDiff: a weight change in a directory app an Application
// renders shows in argocd diff of the app of apps; a listener's hostname
// change detaches routes of other Applications (findings introduced).
func TestArgoCDDiff(t *testing.T) {
	dir, edit := examplesRepo(t)
	root := "examples/argocd/root-app.yaml"
	edit("examples/apps/routing/istio/virtualservice-reviews.yaml", "weight: 90", "weight: 70")
	edit("examples/apps/routing/istio/virtualservice-reviews.yaml", "weight: 10", "weight: 30")
	stdout, stderr, code := runIn(t, dir, "argocd", "diff", "--base", "HEAD", root)
	if code != ExitFindings || !strings.Contains(stdout, "~  Istio Gateway bookinfo/bookinfo") || !strings.Contains(stdout, "w=70") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if strings.Contains(stdout, "Findings introduced") {
		t.Errorf("a weight change introduced findings:\n%s", stdout)
	}
	edit("examples/apps/routing/gateways/gateway.yaml", `"*.shop.example.com"`, `"*.shop.example.net"`)
	stdout, _, _ = runIn(t, dir, "argocd", "diff", "--base", "HEAD", "-o", "json", root)
	for _, w := range []string{`"*.shop.example.net"`, `"RG1007"`, "team-storefront/storefront",
		// The shared Gateway changed: its owner and the team routes' owners.
		`"gateway": "Gateway gateway-infra/shop"`, `"name": "argocd/routing-gateways"`, `"project": "platform"`} {
		if !strings.Contains(stdout, w) {
			t.Errorf("json lacks %s:\n%s", w, stdout)
		}
	}
}
