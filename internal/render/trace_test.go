package render

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/manifest"
)

// traceRepo is a repository with each kind of app whose inputs live outside
// its directory: a Kustomize overlay over a shared base and component, a
// Helm chart with a file:// dependency and a values file elsewhere, a
// directory app, and a Kustomize app reaching its base through a symlink.
var traceRepo = map[string]string{
	"bases/web/kustomization.yaml":   "resources:\n- svc.yaml\n",
	"bases/web/svc.yaml":             "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n",
	"bases/web/README.md":            "not read by anything\n",
	"bases/other/kustomization.yaml": "resources:\n- cm.yaml\n",
	"bases/other/cm.yaml":            cm("other"),
	"bases/copy/kustomization.yaml":  "resources:\n- svc.yaml\n",
	"bases/copy/svc.yaml":            "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n",
	"components/label/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n" +
		"labels:\n- pairs:\n    team: web\n",
	"apps/overlay/kustomization.yaml": "namespace: prod\nresources:\n- ../../bases/web\n- cm.yaml\ncomponents:\n- ../../components/label\n",
	"apps/overlay/cm.yaml":            cm("overlay"),
	"apps/chart/Chart.yaml": "apiVersion: v2\nname: site\nversion: 1.0.0\n" +
		"dependencies:\n- name: lib\n  version: 0.1.0\n  repository: file://../../charts/lib\n",
	"apps/chart/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: site\ndata:\n  host: {{ .Values.host | quote }}\n",
	"charts/lib/Chart.yaml":          "apiVersion: v2\nname: lib\nversion: 0.1.0\n",
	"charts/lib/templates/svc.yaml":  "apiVersion: v1\nkind: Service\nmetadata:\n  name: lib\nspec:\n  ports:\n  - port: {{ .Values.port | default 80 }}\n",
	"values/site.yaml":               "host: a.example.com\n",
	"apps/plain/cm.yaml":             cm("plain"),
	"apps/plain/notes.txt":           "ignored by a directory app, but listed\n",
	"apps/linked/kustomization.yaml": "resources:\n- base\n",
}

var traceApps = map[string]Options{
	"apps/overlay": {},
	"apps/chart":   {Helm: HelmOptions{ValuesFiles: []string{"../../values/site.yaml"}, BuildDependencies: true}},
	"apps/plain":   {},
	"apps/linked":  {},
}

func writeTraceRepo(t *testing.T) string {
	t.Helper()
	repo := writeTree(t, traceRepo)
	if err := os.Symlink("../../bases/web", filepath.Join(repo, "apps/linked/base")); err != nil {
		t.Fatal(err)
	}
	return repo
}

// traced renders app in repo and returns the YAML (or error text) and the
// trace.
func traced(t *testing.T, repo, app string) (string, *confine.Trace) {
	t.Helper()
	tr := confine.NewTrace()
	opts := traceApps[app]
	opts.Trace = tr
	res, err := renderIn(t, repo, app, opts)
	if err != nil {
		return "error: " + strings.ReplaceAll(err.Error(), repo, "REPO"), tr
	}
	var b bytes.Buffer
	if err := manifest.WriteYAML(&b, res.Set.Objects()); err != nil {
		t.Fatal(err)
	}
	return b.String() + strings.Join(ids(res.Set), ","), tr
}

// TestTraceIsSound changes each file of the repository in turn (content,
// removal, and a new file beside it) in a copy, and for every app checks
// that whenever the head render's trace says the copy observes the same,
// rendering the copy gives the same output; and that it says so for the
// files an app does not depend on (so reuse is worth something).
func TestTraceIsSound(t *testing.T) {
	head := writeTraceRepo(t)
	outs := map[string]string{}
	traces := map[string]*confine.Trace{}
	for app := range traceApps {
		outs[app], traces[app] = traced(t, head, app)
		if strings.HasPrefix(outs[app], "error") {
			t.Fatalf("%s: %s", app, outs[app])
		}
		if r := traces[app].OpaqueReason(); r != "" {
			t.Fatalf("%s: opaque trace: %s", app, r)
		}
	}
	type mutation struct {
		name  string
		apply func(dir string) error
	}
	var muts []mutation
	for _, f := range slices.Sorted(func(yield func(string) bool) {
		for f := range traceRepo {
			if !yield(f) {
				return
			}
		}
	}) {
		p := filepath.FromSlash(f)
		muts = append(muts,
			mutation{"edit " + f, func(dir string) error {
				return os.WriteFile(filepath.Join(dir, p), []byte(strings.ReplaceAll(traceRepo[f], "80", "81")+"\n# edited\n"), 0o644)
			}},
			mutation{"remove " + f, func(dir string) error { return os.Remove(filepath.Join(dir, p)) }},
			mutation{"add beside " + f, func(dir string) error {
				return os.WriteFile(filepath.Join(dir, filepath.Dir(p), "zz-new.yaml"), []byte(cm("new")), 0o644)
			}})
	}
	for _, to := range []string{"other", "copy"} { // copy: the same bytes elsewhere
		muts = append(muts, mutation{"relink apps/linked/base to " + to, func(dir string) error {
			l := filepath.Join(dir, "apps/linked/base")
			if err := os.Remove(l); err != nil {
				return err
			}
			return os.Symlink("../../bases/"+to, l)
		}})
	}
	// What each app must be found to depend on, and not to.
	wantDiffers := map[string][]string{
		"apps/overlay": {"edit bases/web/svc.yaml", "edit components/label/kustomization.yaml", "remove apps/overlay/cm.yaml"},
		"apps/chart":   {"edit charts/lib/templates/svc.yaml", "edit values/site.yaml", "add beside apps/chart/templates/cm.yaml"},
		"apps/plain":   {"add beside apps/plain/cm.yaml", "edit apps/plain/cm.yaml"},
		"apps/linked":  {"relink apps/linked/base to other", "relink apps/linked/base to copy", "edit bases/web/svc.yaml"},
	}
	wantSame := map[string][]string{
		"apps/overlay": {"edit bases/web/README.md", "edit bases/other/cm.yaml", "edit charts/lib/templates/svc.yaml"},
		"apps/chart":   {"edit bases/web/svc.yaml", "edit apps/plain/cm.yaml"},
		"apps/plain":   {"edit bases/web/svc.yaml", "edit values/site.yaml"},
		"apps/linked":  {"edit bases/other/cm.yaml", "edit apps/overlay/cm.yaml"},
	}
	for _, m := range muts {
		other := writeTraceRepo(t)
		if err := m.apply(other); err != nil {
			t.Fatal(err)
		}
		for app := range traceApps {
			same, why := traces[app].SameIn(other, head)
			if slices.Contains(wantDiffers[app], m.name) && same {
				t.Errorf("%s: %s: the trace sees no difference", app, m.name)
			}
			if slices.Contains(wantSame[app], m.name) && !same {
				t.Errorf("%s: %s: the trace sees a difference (%s) where there is none to see", app, m.name, why)
			}
			if !same {
				continue
			}
			if got, _ := traced(t, other, app); got != outs[app] {
				t.Errorf("%s: %s: the trace says nothing it saw changed, but the render differs:\n%s\n--- vs\n%s", app, m.name, got, outs[app])
			}
		}
	}
}

// TestTraceOpaque: what happens out of the trace's sight makes it opaque.
func TestTraceOpaque(t *testing.T) {
	repo := writeTree(t, map[string]string{
		"app/kustomization.yaml":            "helmCharts:\n- name: demo\n  releaseName: rel\n",
		"app/charts/demo/Chart.yaml":        "apiVersion: v2\nname: demo\nversion: 0.1.0\n",
		"app/charts/demo/values.yaml":       "{}\n",
		"app/charts/demo/templates/cm.yaml": cm("demo"),
		"plain/cm.yaml":                     cm("plain"),
	})
	tr := confine.NewTrace()
	if _, err := renderIn(t, repo, "app", Options{Trace: tr}); err != nil {
		t.Fatal(err)
	}
	if r := tr.OpaqueReason(); !strings.Contains(r, "helmCharts") {
		t.Errorf("a helmCharts render: opaque reason %q", r)
	}
	tr = confine.NewTrace()
	if _, err := renderIn(t, repo, "plain", Options{Trace: tr, ExtraRoots: []string{t.TempDir()}}); err != nil {
		t.Fatal(err)
	}
	if same, why := tr.SameIn(repo, repo); same || !strings.Contains(why, "outside the repository") {
		t.Errorf("a render with extra roots: same %v (%s)", same, why)
	}
	tr = confine.NewTrace()
	if _, err := renderIn(t, repo, "plain", Options{Trace: tr}); err != nil {
		t.Fatal(err)
	}
	if same, why := tr.SameIn(repo, repo); !same || tr.Len() == 0 {
		t.Errorf("a plain render against itself: same %v (%s), %d observations", same, why, tr.Len())
	}
}

// TestKustomizeHelmErrorIsStable: a helmCharts chart that is not in the
// repository fails with the same message every time (no temporary paths).
func TestKustomizeHelmErrorIsStable(t *testing.T) {
	repo := writeTree(t, map[string]string{
		"app/kustomization.yaml": "helmCharts:\n- name: nginx\n  repo: https://charts.example.com\n  version: 1.0.0\n",
	})
	var msgs []string
	for range 2 {
		_, err := renderIn(t, repo, "app", Options{AllowNetwork: true})
		if err == nil {
			t.Fatal("a chart that is not in the repository rendered")
		}
		msgs = append(msgs, err.Error())
	}
	if msgs[0] != msgs[1] || strings.Contains(msgs[0], "routeguard-helm-") || strings.Contains(msgs[0], os.TempDir()+"/") {
		t.Errorf("unstable or temporary paths in the message:\n%s\n%s", msgs[0], msgs[1])
	}
}
