package action

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
)

// A context path rendered by Kustomize helmCharts resolves references, for
// objects at hand as for rendered apps (flux build used to render context
// paths without the helm shim).
func TestContextPathWithHelmCharts(t *testing.T) {
	repo := writeTree(t, map[string]string{
		".routeguard.yaml":               "contextPaths: [backend]\n",
		"backend/kustomization.yaml":     "helmCharts:\n  - name: web\n    releaseName: web\n    namespace: shop\n",
		"backend/charts/web/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"backend/charts/web/values.yaml": "{}\n",
		"backend/charts/web/templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: {{ .Release.Namespace }}\n" +
			"spec:\n  ports:\n    - port: 80\n",
	})
	for _, objs := range []bool{true, false} {
		opts := render.Options{Path: repo, RepoRoot: repo}
		var out *pipeline.Outcome
		var err error
		if objs {
			out, err = runObjects(context.Background(), pipeline.Input{Objects: objects(t, route), AppDir: repo, RepoRoot: repo},
				pipeline.Changes{}, &pipeline.Analysis{ContextPaths: contextPaths(opts)})
		} else {
			if err := os.WriteFile(filepath.Join(repo, "route.yaml"), []byte(route), 0o644); err != nil {
				t.Fatal(err)
			}
			_, out, err = renderApp(context.Background(), opts, pipeline.Input{}, pipeline.Changes{}, &pipeline.Analysis{})
		}
		if err != nil {
			t.Fatalf("objects=%v: %v", objs, err)
		}
		for _, f := range out.Findings {
			if f.Code == analysis.CodeBackendNotFound || f.Code == analysis.CodeUnresolvedOutside {
				t.Fatalf("objects=%v: the Service of the context path was not seen: %v", objs, codes(out.Findings))
			}
		}
	}
}

// A directory that renders no objects (files that are not Kubernetes
// objects, or none) is RG0007, not "no findings"; objects given (stdin,
// postrender) are the caller's: none is not an app that renders nothing.
func TestRendersNothing(t *testing.T) {
	repo := writeTree(t, map[string]string{"notes/todo.yaml": "todo: [upgrade]\n", "README.md": "# app\n"})
	_, out, err := renderApp(context.Background(), render.Options{Path: repo, RepoRoot: repo}, pipeline.Input{}, pipeline.Changes{}, &pipeline.Analysis{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Findings) != 1 || out.Findings[0].Code != analysis.CodeRendersNothing {
		t.Fatalf("findings %v, want one RG0007", codes(out.Findings))
	}
	if f := out.Findings[0]; f.Severity != analysis.SeverityWarning || !strings.Contains(f.Message, "renders no objects") {
		t.Errorf("finding %+v", f)
	}
	out, err = runObjects(context.Background(), pipeline.Input{Objects: manifest.NewSet(), AppDir: repo, RepoRoot: repo}, pipeline.Changes{}, &pipeline.Analysis{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Findings) != 0 {
		t.Errorf("objects given: %v", codes(out.Findings))
	}
}

// A Flux HelmRelease among an app's objects installs its chart in the
// cluster, so a Service its release namespace lacks here cannot be checked
// (RG0001, with a note) — unless the objects come from `routeguard flux
// build`, which built the release (and analyzes without runObjects).
func TestFluxObjectsUnbuilt(t *testing.T) {
	const release = `---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: web, namespace: flux-system}
spec:
  targetNamespace: shop
  chart: {spec: {chart: web, sourceRef: {kind: HelmRepository, name: charts}}}
`
	repo := writeTree(t, nil)
	for _, built := range []bool{false, true} {
		in := pipeline.Input{Objects: objects(t, route+otherService+release), AppDir: repo, RepoRoot: repo}
		var out *pipeline.Outcome
		var err error
		if built {
			out, err = pipeline.Run(context.Background(), in, pipeline.Changes{}, pipeline.Analysis{})
		} else {
			out, err = runObjects(context.Background(), in, pipeline.Changes{}, &pipeline.Analysis{})
		}
		if err != nil {
			t.Fatal(err)
		}
		want := analysis.CodeUnresolvedOutside
		if built {
			want = analysis.CodeBackendNotFound
		}
		if !slices.ContainsFunc(out.Findings, func(f analysis.Finding) bool { return f.Code == want && f.Object.Name == "web" }) {
			t.Errorf("built=%v: want %s for the route's backend: %v", built, want, codes(out.Findings))
		}
		noted := slices.ContainsFunc(out.Notices, func(n notice.Notice) bool { return strings.Contains(n.Text, "HelmRelease flux-system/web") })
		if noted == built {
			t.Errorf("built=%v: note naming the HelmRelease: %v", built, out.Notices)
		}
	}
}
