package render

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
)

// writeHelmChartsRepo writes a repository whose Kustomize app inflates a
// vendored chart through helmCharts, reading its values and one template
// through symlinks that stay inside the repository. A render confined to
// another repository's root refuses those symlinks, so a render that picks
// up another render's root fails (or renders the other repository's name).
func writeHelmChartsRepo(t *testing.T, dir string, i int) {
	t.Helper()
	files := map[string]string{
		"app/kustomization.yaml":          "helmGlobals:\n  chartHome: ../charts\nhelmCharts:\n  - name: web\n    releaseName: web\n    valuesFile: values.yaml\n",
		"charts/web/Chart.yaml":           "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"charts/web/templates/svc.yaml":   "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Values.name }}\nspec:\n  ports:\n    - port: 80\n",
		"shared/values.yaml":              fmt.Sprintf("name: repo-%02d\n", i),
		"shared/configmap.tpl.yaml":       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}-config\ndata:\n  repo: {{ .Values.name | quote }}\n",
		"charts/web/templates/.gitignore": "",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"app/values.yaml":                  "../shared/values.yaml",
		"charts/web/templates/config.yaml": "../../../shared/configmap.tpl.yaml",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
}

func renderYAML(ctx context.Context, repo string) (string, error) {
	res, err := Render(ctx, Options{Path: filepath.Join(repo, "app"), RepoRoot: repo})
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	err = manifest.WriteYAML(&b, res.Set.Objects())
	return b.String(), err
}

// TestConcurrentRendersOfDifferentRepositories renders 50 repositories at
// once in one process (run with -race by `make test`) and compares each
// output with the same repository rendered alone: no render may see
// another's repository root (the helm shim gets its root per render).
func TestConcurrentRendersOfDifferentRepositories(t *testing.T) {
	const n = 50
	base := t.TempDir()
	repos := make([]string, n)
	serial := make([]string, n)
	for i := range repos {
		repos[i] = filepath.Join(base, fmt.Sprintf("repo-%02d", i))
		writeHelmChartsRepo(t, repos[i], i)
	}
	ctx := context.Background()
	for i, repo := range repos {
		out, err := renderYAML(ctx, repo)
		if err != nil {
			t.Fatalf("serial render of %s: %v", repo, err)
		}
		if want := fmt.Sprintf("repo: repo-%02d", i); !bytes.Contains([]byte(out), []byte(want)) {
			t.Fatalf("serial render of %s lacks %q:\n%s", repo, want, out)
		}
		serial[i] = out
	}
	concurrent := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, repo := range repos {
		wg.Add(1)
		go func() {
			defer wg.Done()
			concurrent[i], errs[i] = renderYAML(ctx, repo)
		}()
	}
	wg.Wait()
	for i := range repos {
		if errs[i] != nil {
			t.Errorf("concurrent render of repo-%02d: %v", i, errs[i])
			continue
		}
		if concurrent[i] != serial[i] {
			t.Errorf("concurrent render of repo-%02d differs from its serial render:\n%s\nwant:\n%s", i, concurrent[i], serial[i])
		}
	}
}
