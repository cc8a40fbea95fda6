package render

import (
	"errors"
	"strings"
	"testing"
)

// With SkipMissingCharts, a kustomization whose helmCharts name a chart
// that is not vendored renders without it (the vendored one and the plain
// resources are kept) and lists it; without the option the app is
// NotFetched, as before. A build that fails without the chart (a patch
// targets what it makes) stays NotFetched.
func TestKustomizeSkipMissingCharts(t *testing.T) {
	files := map[string]string{
		"app/kustomization.yaml": `namespace: net
resources: [gw.yaml, sub]
helmCharts:
- name: cilium
  repo: https://helm.cilium.io
  version: 1.18.0
  releaseName: cilium
- name: demo
  releaseName: rel
`,
		"app/gw.yaml":                       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: gw\n",
		"app/charts/demo/Chart.yaml":        "apiVersion: v2\nname: demo\nversion: 0.1.0\n",
		"app/charts/demo/values.yaml":       "{}\n",
		"app/charts/demo/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cfg\n",
		"app/sub/kustomization.yaml":        "helmCharts:\n- name: tools\n  repo: oci://ghcr.io/example/charts\n  version: 2.0.0\n  namespace: tools\n",
	}
	repo := writeTree(t, files)
	res, err := renderIn(t, repo, "app", Options{SkipMissingCharts: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids(res.Set), " "); !strings.Contains(got, "ConfigMap net/gw@app/gw.yaml") || !strings.Contains(got, "ConfigMap rel-cfg@") || len(res.Set.Objects()) != 2 {
		t.Errorf("objects %s, want the resource and the vendored chart's ConfigMap", got)
	}
	var missing []string
	for _, mc := range res.MissingCharts {
		missing = append(missing, mc.String()+" ns="+mc.Namespace)
	}
	if got, want := strings.Join(missing, "; "), "app/kustomization.yaml:4: chart cilium 1.18.0 from https://helm.cilium.io ns=net; app/sub/kustomization.yaml:2: chart tools 2.0.0 from oci://ghcr.io/example/charts ns=tools"; got != want {
		t.Errorf("missing charts:\n got %s\nwant %s", got, want)
	}

	var nf *NotFetchedError
	if _, err := renderIn(t, repo, "app", Options{}); !errors.As(err, &nf) {
		t.Errorf("without SkipMissingCharts: want NotFetchedError, got %v", err)
	}

	files["app/kustomization.yaml"] += "patches:\n- patch: |\n    apiVersion: apps/v1\n    kind: DaemonSet\n    metadata: {name: cilium}\n    spec: {template: {spec: {priorityClassName: x}}}\n"
	repo = writeTree(t, files)
	if _, err := renderIn(t, repo, "app", Options{SkipMissingCharts: true}); !errors.As(err, &nf) || !strings.Contains(err.Error(), "the build fails without it") {
		t.Errorf("a patch of the chart's output: want NotFetchedError, got %v", err)
	}
}

// With SkipMissingDependencies, a chart whose dependency is neither
// vendored nor fetchable renders its own templates and lists the
// dependency; without it, or when its own templates need the dependency
// (an include of the subchart's), the chart is MissingDependenciesError.
func TestHelmSkipMissingDependencies(t *testing.T) {
	files := map[string]string{
		"app/Chart.yaml":              "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n- name: redis\n  version: 20.0.0\n  repository: https://charts.example.com\n",
		"app/values.yaml":             "redis: {enabled: true}\n",
		"app/templates/svc.yaml":      "apiVersion: v1\nkind: Service\nmetadata: {name: {{ .Release.Name }}-web}\nspec: {ports: [{port: 80}]}\n",
		"other/Chart.yaml":            "apiVersion: v2\nname: other\nversion: 1.0.0\ndependencies:\n- name: redis\n  version: 20.0.0\n  repository: https://charts.example.com\n",
		"other/templates/cm.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ include \"redis.fullname\" . }}}\n",
		"other/values.yaml":           "{}\n",
		"nothing/Chart.yaml":          "apiVersion: v2\nname: nothing\nversion: 1.0.0\ndependencies:\n- name: redis\n  version: 20.0.0\n  repository: https://charts.example.com\n",
		"nothing/values.yaml":         "{}\n",
		"nothing/templates/NOTES.txt": "hello\n",
	}
	repo := writeTree(t, files)
	opts := Options{Helm: HelmOptions{Release: "shop", BuildDependencies: true, SkipMissingDependencies: true}}
	res, err := renderIn(t, repo, "app", opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Set.Len() != 1 || res.MissingDependencies == nil || len(res.MissingDependencies.Missing) != 1 || res.MissingDependencies.Missing[0].Name != "redis" {
		t.Fatalf("objects %v, missing %+v", ids(res.Set), res.MissingDependencies)
	}
	var md *MissingDependenciesError
	for _, dir := range []string{"other", "nothing"} {
		if _, err := renderIn(t, repo, dir, opts); !errors.As(err, &md) {
			t.Errorf("%s: want MissingDependenciesError, got %v", dir, err)
		}
	}
	opts.Helm.SkipMissingDependencies = false
	if _, err := renderIn(t, repo, "app", opts); !errors.As(err, &md) {
		t.Errorf("without SkipMissingDependencies: want MissingDependenciesError, got %v", err)
	}
}

// Lines libraries write to stderr come out once each, Kustomize's warnings
// prefixed as routeguard's, terminal escapes neutralised.
func TestFilterStderr(t *testing.T) {
	in := "# Warning: 'commonLabels' is deprecated. Please use 'labels' instead.\n" +
		"# Warning: 'commonLabels' is deprecated. Please use 'labels' instead.\n" +
		"other \x1b[31mred\n\n# Warning: 'commonLabels' is deprecated. Please use 'labels' instead.\n"
	var out strings.Builder
	filterStderr(strings.NewReader(in), &out)
	want := "routeguard: kustomize: warning: 'commonLabels' is deprecated. Please use 'labels' instead.\nrouteguard: other \\x1b[31mred\n"
	if out.String() != want {
		t.Errorf("got %q\nwant %q", out.String(), want)
	}
}
