package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/test/harness"
)

const watchRepoURL = "https://git.example.com/fleet.git"

func watchApp(name, path, annotation string) string {
	ann := ""
	if annotation != "" {
		ann = "\n  annotations: {argocd.argoproj.io/manifest-generate-paths: \"" + annotation + "\"}"
	}
	return `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: ` + name + `
  namespace: argocd` + ann + `
spec:
  project: default
  source: {repoURL: "` + watchRepoURL + `", path: ` + path + `, targetRevision: HEAD}
  destination: {server: "https://kubernetes.default.svc", namespace: ` + name + `}
`
}

// An Application's manifest-generate-paths widen what affects it (a
// change under them that its render does not read rebuilds it) and never
// narrow it (a change its render reads outside them rebuilds it too, with
// a warning that Argo CD would not refresh it); the review is the full
// review either way.
func TestArgoCDDiffManifestGeneratePaths(t *testing.T) {
	files := map[string]string{
		"argocd/web.yaml":               watchApp("web", "apps/web", ".;/docs/web"),
		"argocd/other.yaml":             watchApp("other", "apps/other", ""),
		"apps/web/kustomization.yaml":   "resources: [../../bases/site]\n",
		"bases/site/kustomization.yaml": "resources: [route.yaml]\n",
		"bases/site/route.yaml":         "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: site}\nspec:\n  hostnames: [web.example.com]\n  rules:\n  - backendRefs: [{name: site, port: 80}]\n",
		"apps/other/route.yaml":         "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: other}\nspec:\n  hostnames: [other.example.com]\n  rules:\n  - backendRefs: [{name: other, port: 80}]\n",
		"docs/web/notes.md":             "notes\n",
	}
	for _, tc := range []struct {
		name, file, content string
		built               string // the counts line
		warn                bool   // Argo CD would not refresh web
	}{
		{"under the annotation, not read", "docs/web/notes.md", "more notes\n", "Applications: 1 built, 1 unaffected", false},
		{"read, outside the annotation", "bases/site/route.yaml", strings.Replace(files["bases/site/route.yaml"], "port: 80", "port: 8080", 1), "Applications: 1 built, 1 unaffected", true},
		{"neither", "README.md", "readme\n", "Applications: 0 built, 2 unaffected", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for p, c := range files {
				full := filepath.Join(dir, filepath.FromSlash(p))
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			harness.CommitAll(t, dir)
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(tc.file)), []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"argocd", "diff", "--repo-url", watchRepoURL}
			fullOut, fullErr, fullCode := runIn(t, dir, append(args, "--base", "HEAD", "argocd")...)
			affOut, affErr, affCode := runIn(t, dir, append(args, "--changed-from", "HEAD", "argocd")...)
			if fullCode == ExitError || affCode != fullCode {
				t.Fatalf("exit %d full, %d affected-only\n%s\n%s", fullCode, affCode, fullErr, affErr)
			}
			if !strings.Contains(affOut, tc.built) {
				t.Errorf("want %q:\n%s\n%s", tc.built, affOut, affErr)
			}
			if got := countsLine.ReplaceAllString(affOut, ""); got != countsLine.ReplaceAllString(fullOut, "") {
				t.Errorf("the affected-only review differs\n--- full\n%s\n--- affected-only\n%s", fullOut, affOut)
			}
			warned := strings.Contains(affErr, "Application argocd/web reads bases/site/route.yaml") && strings.Contains(affErr, "would not refresh it")
			if warned != tc.warn {
				t.Errorf("warning %v, want %v:\n%s", warned, tc.warn, affErr)
			}
		})
	}
}
