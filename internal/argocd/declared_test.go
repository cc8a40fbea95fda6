package argocd

import (
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
)

// analyzeByApp builds the roots and analyzes them, returning the findings
// of each Application key.
func analyzeByApp(t *testing.T, res *Result) map[string][]analysis.Finding {
	t.Helper()
	outs := analyzeClusters(t, res)
	byApp := map[string][]analysis.Finding{}
	for _, o := range outs {
		for _, f := range o.Findings {
			byApp[f.App] = append(byApp[f.App], f)
		}
	}
	return byApp
}

func errorCodes(fs []analysis.Finding) []string {
	var out []string
	for _, f := range fs {
		if f.Severity == analysis.SeverityError {
			out = append(out, f.Code+" "+f.Object.Kind+" "+f.Object.Name+": "+f.Message)
		}
	}
	return out
}

// Two Argo CD instances each hold an argocd/root, declared in two files
// with different paths and clusters: both are analyzed, each finding
// names its file, and the broken one's error is reported (it used to be
// dropped, as the second manifest of the same name, with "no findings").
func TestSameNameApplicationsAreEachAnalyzed(t *testing.T) {
	prod := strings.ReplaceAll(application("root", "gateway-system", "apps/prod", ""), "https://kubernetes.default.svc", "https://prod.example.com")
	root := writeRepo(t, map[string]string{
		"bootstrap/root/root-dev.yaml":  application("root", "gateway-system", "apps/dev", ""),
		"bootstrap/root/root-prod.yaml": prod,
		"bootstrap/root/root-stag.yaml": application("root", "gateway-system", "apps/dev", ""),
		"apps/dev/gateway.yaml":         platformGateway,
		"apps/dev/route.yaml":           route("web", "gateway-system", "web"),
		"apps/prod/gateway.yaml":        platformGateway,
		"apps/prod/route.yaml":          strings.Replace(route("web", "gateway-system", "web"), "- name: web\n          port: 80", "- name: missing\n          port: 80", 1),
	})
	res := build(t, root, Options{}, "bootstrap")
	dev, prodKey := "argocd/root@bootstrap/root/root-dev.yaml", "argocd/root@bootstrap/root/root-prod.yaml"
	equal(t, "Applications", appKeys(res), []string{dev, prodKey})
	if !strings.Contains(notices(res), "2 different Applications are named argocd/root (bootstrap/root/root-dev.yaml, bootstrap/root/root-prod.yaml)") {
		t.Errorf("no note naming both files:\n%s", notices(res))
	}
	if !strings.Contains(notices(res), "declared twice with the same spec (bootstrap/root/root-dev.yaml:1 and bootstrap/root/root-stag.yaml:1)") {
		t.Errorf("no note about the identical copy:\n%s", notices(res))
	}
	byApp := analyzeByApp(t, res)
	if errs := errorCodes(byApp[dev]); len(errs) != 0 {
		t.Errorf("dev: want no error, got %q", errs)
	}
	if errs := errorCodes(byApp[prodKey]); !slices.ContainsFunc(errs, func(s string) bool {
		return strings.Contains(s, "HTTPRoute web") && strings.Contains(s, "missing")
	}) {
		t.Errorf("prod: want the error of its route to Service missing, got %q (all: %v)", errs, byApp)
	}
}

// A Kustomize patch of an Application (only spec.source.targetRevision)
// that sorts before its base is not an Application: it is skipped with a
// warning naming it and the base renders into its destination namespace,
// with no false error. An Application with no destination that no
// kustomization names is skipped the same way.
func TestPatchFragmentDoesNotShadowApplication(t *testing.T) {
	fragment := `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: web
spec:
  source:
    repoURL: ` + repoURL + `
    targetRevision: prod
`
	root := writeRepo(t, map[string]string{
		"argocd/a-overlays/prod/kustomization.yaml": "resources: [../../base]\npatches:\n  - path: branch.yaml\n",
		"argocd/a-overlays/prod/branch.yaml":        fragment,
		"argocd/a-overlays/stage/stray.yaml":        strings.ReplaceAll(fragment, "name: web", "name: api"),
		"argocd/base/kustomization.yaml":            "resources: [web.yaml, api.yaml]\n",
		"argocd/base/web.yaml":                      application("web", "web", "apps/web", ""),
		"argocd/base/api.yaml":                      application("api", "web", "apps/api", ""),
		"apps/web/route.yaml":                       platformGateway + "---\n" + route("web", "gateway-system", "web"),
		"apps/api/cm.yaml":                          configMap("api"),
	})
	res := build(t, root, Options{}, "argocd")
	equal(t, "Applications", appKeys(res), []string{"argocd/api", "argocd/web"})
	web := app(t, res, "argocd/web")
	if web.App.Spec.Destination.Namespace != "web" || web.App.Source.File != "argocd/base/web.yaml" {
		t.Errorf("argocd/web is %s into %q, want the base into web", web.App.Source, web.App.Spec.Destination.Namespace)
	}
	for _, want := range []string{
		"argocd/a-overlays/prod/branch.yaml:1: Application web looks like a patch fragment (argocd/a-overlays/prod/kustomization.yaml uses the file as a patch)",
		"argocd/a-overlays/stage/stray.yaml:1: Application api looks like a patch fragment (it has no spec.destination server or name)",
	} {
		if !strings.Contains(notices(res), want) {
			t.Errorf("no warning %q in:\n%s", want, notices(res))
		}
	}
	for key, fs := range analyzeByApp(t, res) {
		if errs := errorCodes(fs); len(errs) != 0 {
			t.Errorf("%s: want no error, got %q", key, errs)
		}
	}
}

// A parent that renders one of two same-name Applications scanned in the
// repository renders that one (the twin with its spec), not a third.
func TestRenderedTwinIsTheScannedOne(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"clusters/dev/root.yaml":      application("root", "argocd", "clusters/dev/apps", ""),
		"clusters/dev/apps/web.yaml":  application("web", "web", "apps/dev", ""),
		"clusters/prod/apps/web.yaml": application("web", "web", "apps/prod", ""),
		"apps/dev/cm.yaml":            configMap("dev"),
		"apps/prod/cm.yaml":           configMap("prod"),
	})
	res := build(t, root, Options{}, "clusters")
	dev := "argocd/web@clusters/dev/apps/web.yaml"
	equal(t, "Applications", appKeys(res), []string{"argocd/root", dev, "argocd/web@clusters/prod/apps/web.yaml"})
	if got := app(t, res, dev).App.Origin; got != "rendered by Application argocd/root" {
		t.Errorf("dev web origin = %q", got)
	}
	if strings.Contains(notices(res), "besides them") || strings.Contains(notices(res), "produced by both") {
		t.Errorf("the rendered twin is the scanned one:\n%s", notices(res))
	}
}

// Two Argo CD instances' roots (same-name twins) that render the same
// child Application are one app to check, with no "shared resource"
// warning; when the two renders differ, the user is told that only the
// first is analyzed.
func TestTwinRootsRenderingOneChild(t *testing.T) {
	for _, tc := range []struct {
		name     string
		prodPath string
		warn     string
	}{
		{"same spec", "svc/web", ""},
		{"different spec", "svc/web-prod", "is rendered differently by Application argocd/root@bootstrap/root-dev.yaml and by Application argocd/root@bootstrap/root-prod.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prod := strings.ReplaceAll(application("root", "argocd", "apps/prod", ""), "https://kubernetes.default.svc", "https://prod.example.com")
			root := writeRepo(t, map[string]string{
				"bootstrap/root-dev.yaml":  application("root", "argocd", "apps/dev", ""),
				"bootstrap/root-prod.yaml": prod,
				"apps/dev/web.yaml":        application("web", "web", "svc/web", ""),
				"apps/prod/web.yaml":       application("web", "web", tc.prodPath, ""),
				"svc/web/cm.yaml":          configMap("web"),
				"svc/web-prod/cm.yaml":     configMap("web-prod"),
			})
			res := build(t, root, Options{}, "bootstrap")
			got := notices(res)
			if strings.Contains(got, "shared resource") {
				t.Errorf("twin roots are not a shared resource:\n%s", got)
			}
			if tc.warn == "" && strings.Contains(got, "rendered differently") {
				t.Errorf("identical renders warned:\n%s", got)
			}
			if tc.warn != "" && !strings.Contains(got, tc.warn) {
				t.Errorf("no warning %q in:\n%s", tc.warn, got)
			}
			if n := strings.Count(strings.Join(appKeys(res), " "), "argocd/web"); n != 1 {
				t.Errorf("argocd/web analyzed %d times: %v", n, appKeys(res))
			}
		})
	}
}

// An Application file that sits in the directory a root renders, but that
// its kustomization.yaml does not list, is never created by Argo CD: it is
// skipped with a warning (its missing path was a false RG0009), and so are
// the Applications it would render. A root that renders its own directory
// is kept.
func TestUnlistedApplicationIsSkipped(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"argocd/root.yaml":          application("root", "argocd", "argocd", ""),
		"argocd/kustomization.yaml": "resources: [web.yaml]\n",
		"argocd/web.yaml":           application("web", "web", "apps/web", ""),
		"argocd/disabled.yaml":      application("disabled", "sched", "apps/not-yet", ""),
		"argocd/stray-parent.yaml":  application("stray-parent", "argocd", "more", ""),
		"more/child.yaml":           application("child", "web", "apps/missing", ""),
		"apps/web/route.yaml":       platformGateway + "---\n" + route("web", "gateway-system", "web"),
	})
	res := build(t, root, Options{}, "argocd")
	equal(t, "Applications", appKeys(res), []string{"argocd/root", "argocd/web"})
	for _, want := range []string{
		"Application argocd/disabled (argocd/disabled.yaml:1) is in argocd, which Application argocd/root renders without it",
		"Application argocd/stray-parent (argocd/stray-parent.yaml:1) is in argocd",
	} {
		if !strings.Contains(notices(res), want) {
			t.Errorf("no warning %q in:\n%s", want, notices(res))
		}
	}
	for key, fs := range analyzeByApp(t, res) {
		if errs := errorCodes(fs); len(errs) != 0 {
			t.Errorf("%s: want no error, got %q", key, errs)
		}
	}
}

// A multi-source Application whose second path is missing names that
// field (spec.sources[1].path), not spec.source.path, which it does not have.
func TestMissingPathNamesItsSourceField(t *testing.T) {
	multi := `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: web, namespace: argocd}
spec:
  project: default
  destination: {server: https://kubernetes.default.svc, namespace: web}
  sources:
    - {repoURL: ` + repoURL + `, path: apps/web, targetRevision: HEAD}
    - {repoURL: ` + repoURL + `, path: apps/typo, targetRevision: HEAD}
`
	root := writeRepo(t, map[string]string{
		"argocd/web.yaml":  multi,
		"apps/web/cm.yaml": configMap("web"),
	})
	res := build(t, root, Options{}, "argocd")
	a := app(t, res, "argocd/web")
	if a.Err == nil || !strings.Contains(a.Err.Error(), `source path "apps/typo" does not exist in this repository (app path does not exist); fix spec.sources[1].path`) {
		t.Errorf("error = %v", a.Err)
	}
}

// A path holding no Application or ApplicationSet says so, rather than
// that no source points at this checkout.
func TestNoApplicationsFound(t *testing.T) {
	root := writeRepo(t, map[string]string{"manifests/cm.yaml": configMap("web")})
	res := build(t, root, Options{}, "manifests")
	if got := notices(res); !strings.Contains(got, "found no Argo CD Application or ApplicationSet in the 1 manifest files read") || strings.Contains(got, "no Application source points") {
		t.Errorf("notices:\n%s", got)
	}
}
