package e2e

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/test/harness"
)

// manifestRepo commits testdata/manifest-review as a repository's only
// commit; the test then edits the work tree (the head).
func manifestRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(harness.RepoRoot, "test/e2e/testdata/manifest-review")
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	harness.CommitAll(t, dir)
	return dir
}

// TestManifestReview: a chart release (chart and app version bumped, the
// replicas an HPA owns changed, one setting changed), a Kustomize
// generated ConfigMap changed and a Secret's password changed, reviewed by
// argocd diff --diff=manifests: only the setting, the ConfigMap (diffed
// across its hash rename) with the Deployment's reference to it, and the
// Secret's changed mark show; no Secret value reaches any output.
func TestManifestReview(t *testing.T) {
	dir := manifestRepo(t)
	diff := func(args ...string) harness.Result {
		return harness.Run(t, harness.Options{Dir: dir}, append([]string{"argocd", "diff", "--base", "HEAD"}, append(args, "argocd")...)...)
	}
	if r := diff("--diff=manifests"); r.Code != 0 || !strings.Contains(r.Stdout, "Manifest diff: no manifest changes") {
		t.Fatalf("unchanged: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	edit(t, filepath.Join(dir, "charts/web/Chart.yaml"), "version: 1.0.0", "version: 1.1.0")
	edit(t, filepath.Join(dir, "charts/web/Chart.yaml"), `appVersion: "1.0.0"`, `appVersion: "1.1.0"`)
	edit(t, filepath.Join(dir, "charts/web/values.yaml"), "replicaCount: 2", "replicaCount: 3")
	edit(t, filepath.Join(dir, "charts/web/values.yaml"), "greeting: hello", "greeting: welcome")
	edit(t, filepath.Join(dir, "apps/config/kustomization.yaml"), "LOG_LEVEL=info", "LOG_LEVEL=debug")
	newPassword := base64.StdEncoding.EncodeToString([]byte("hunter2-head"))
	edit(t, filepath.Join(dir, "apps/db/secret.yaml"), "aHVudGVyMi1iYXNl", newPassword)

	r := diff("--diff=manifests")
	if r.Code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, want := range []string{
		"Manifest diff: 4 objects changed in 3 apps (2 objects differing only in filtered fields not shown)",
		"filtered: label helm.sh/chart, label app.kubernetes.io/version, annotations checksum/*, Application argocd/web ignoreDifferences /spec/replicas",
		"=== Application argocd/web\n--- base v1 ConfigMap shop/web-settings\n",
		"-  GREETING: hello\n+  GREETING: welcome\n",
		"renamed from worker-config-",
		"-  LOG_LEVEL: info\n+  LOG_LEVEL: debug\n",
		"+++ head apps/v1 Deployment shop/worker\n",
		"-  password: ++++++++\n+  password: ++++++++++++\n",
		"   username: ++++++++\n",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.Stdout)
		}
	}
	for _, noise := range []string{"Deployment shop/web", "helm.sh/chart: web", "checksum/config:", "replicas: 3", "Service shop/web"} {
		if strings.Contains(r.Stdout, noise) {
			t.Errorf("stdout shows filtered noise %q:\n%s", noise, r.Stdout)
		}
	}
	if !strings.Contains(r.Stderr, `jqPathExpressions ".spec.clusterIP" not applied to the manifest diff`) {
		t.Errorf("stderr does not say the jq expression was not applied:\n%s", r.Stderr)
	}
	md, js := diff("--diff=both", "-o", "markdown"), diff("--diff=manifests", "-o", "json")
	secrets := []string{"hunter2", "aHVudGVyMi1iYXNl", newPassword, "c2hvcA==", "postgres://"}
	for _, out := range []harness.Result{r, md, js} {
		for _, s := range secrets {
			if strings.Contains(out.Stdout+out.Stderr, s) {
				t.Errorf("a Secret's value %q is in the output", s)
			}
		}
	}
	if !strings.Contains(md.Stdout, "#### Other objects changed") || !strings.Contains(md.Stdout, "<details><summary><code>Application argocd/config</code>: 2 objects (+3 −3)</summary>") ||
		!strings.Contains(md.Stdout, "```diff\n@@ -1,6 +1,6 @@\n apiVersion: v1\n data:\n-  GREETING: hello\n") {
		t.Errorf("--diff=both markdown:\n%s", md.Stdout)
	}
	var doc struct {
		ComparedFully bool `json:"manifestsComparedFully"`
		Manifests     struct {
			Changed bool
			Apps    []struct {
				App     struct{ Kind, Name string }
				Objects []struct {
					Kind, Name, RenamedFrom string
					Hunks                   []struct{ Lines []string }
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(js.Stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, js.Stdout)
	}
	if !doc.ComparedFully || !doc.Manifests.Changed || len(doc.Manifests.Apps) != 3 || doc.Manifests.Apps[0].App.Name != "argocd/config" ||
		!strings.HasPrefix(doc.Manifests.Apps[0].Objects[0].RenamedFrom, "worker-config-") {
		t.Errorf("json: %+v", doc)
	}
	// The default review is the routing review alone; --ignore-pointer
	// needs the manifest diff.
	if r := diff(); strings.Contains(r.Stdout, "Manifest diff") || !strings.Contains(r.Stdout, "no routing change") || r.Code != 0 {
		t.Errorf("default review: exit %d\n%s", r.Code, r.Stdout)
	}
	if r := diff("--ignore-pointer", "/data"); r.Code != 2 || !strings.Contains(r.Stderr, "--ignore-pointer is for the manifest diff") {
		t.Errorf("--ignore-pointer without --diff: exit %d %s", r.Code, r.Stderr)
	}
	if r := diff("--diff=all"); r.Code != 2 || !strings.Contains(r.Stderr, "--diff must be routing, manifests, both") {
		t.Errorf("--diff=all: exit %d %s", r.Code, r.Stderr)
	}
	// A kind-scoped pointer hides the generated ConfigMaps' data; the
	// Deployment's reference to the new name still shows.
	r = diff("--diff=manifests", "--ignore-pointer", "ConfigMap:/data", "--ignore-pointer", "Secret:/data/password")
	if strings.Contains(r.Stdout, "LOG_LEVEL") || strings.Contains(r.Stdout, "GREETING") || strings.Contains(r.Stdout, "Secret shop/db-credentials") ||
		!strings.Contains(r.Stdout, "+++ head apps/v1 Deployment shop/worker") || !strings.Contains(r.Stdout, "--ignore-pointer /data") {
		t.Errorf("--ignore-pointer ConfigMap:/data:\n%s", r.Stdout)
	}
}

// TestFluxManifestReview: the same chart released by a Flux HelmRelease
// (chart in Git) and the Kustomize app by a Kustomization: flux diff
// groups the objects by HelmRelease and Kustomization, shows the values
// change on the HelmRelease itself, and, with no ignoreDifferences in
// Flux, the replicas change; the label and checksum bump stays hidden.
func TestFluxManifestReview(t *testing.T) {
	dir := manifestRepo(t)
	edit(t, filepath.Join(dir, "charts/web/Chart.yaml"), "version: 1.0.0", "version: 1.1.0")
	edit(t, filepath.Join(dir, "charts/web/values.yaml"), "replicaCount: 2", "replicaCount: 3")
	edit(t, filepath.Join(dir, "clusters/prod/web.yaml"), "greeting: hello", "greeting: welcome")
	edit(t, filepath.Join(dir, "apps/config/kustomization.yaml"), "LOG_LEVEL=info", "LOG_LEVEL=debug")
	r := harness.Run(t, harness.Options{Dir: dir}, "flux", "diff", "--base", "HEAD", "--diff=both", "clusters/prod")
	if r.Code != 1 {
		t.Fatalf("exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	i := strings.Index(r.Stdout, "Manifest diff:")
	if i < 0 || !strings.Contains(r.Stdout[:i], "no routing change") {
		t.Fatalf("no routing review before the manifest diff:\n%s", r.Stdout)
	}
	manifests := r.Stdout[i:]
	for _, want := range []string{
		"Manifest diff: 5 objects changed in 3 apps (1 object differing only in filtered fields not shown)",
		"=== HelmRelease shop/web\n--- base v1 ConfigMap shop/web-settings\n",
		"+++ head apps/v1 Deployment shop/web\n", "-  replicas: 2\n+  replicas: 3\n",
		"=== Kustomization flux-system/config\n", "renamed from worker-config-",
		"=== Kustomization flux-system/flux-system\n--- base helm.toolkit.fluxcd.io/v2 HelmRelease shop/web\n", "-    greeting: hello\n+    greeting: welcome\n",
	} {
		if !strings.Contains(manifests, want) {
			t.Errorf("the manifest diff lacks %q:\n%s", want, manifests)
		}
	}
	if strings.Contains(manifests, "helm.sh/chart: web") || strings.Contains(manifests, "Service shop/web") {
		t.Errorf("the chart label bump shows:\n%s", manifests)
	}
}
