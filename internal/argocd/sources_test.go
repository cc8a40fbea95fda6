package argocd

import (
	"strings"
	"testing"
)

// A chart whose ConfigMap shows the values, release and namespace Helm
// rendered it with.
var chartFiles = map[string]string{
	"charts/web/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 1.0.0\n",
	"charts/web/values.yaml": "color: default\nsize: small\nreplicas: 1\nregion: none\n",
	"charts/web/templates/cm.yaml": `
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-web
  namespace: {{ .Release.Namespace }}
data:
  color: {{ .Values.color | quote }}
  size: {{ .Values.size | quote }}
  replicas: {{ .Values.replicas | quote }}
  region: {{ .Values.region | quote }}
  revision: {{ .Values.revision | default "" | quote }}
`,
	"charts/web/values-prod.yaml":   "color: prod\nsize: large\n",
	"charts/web/values-region.yaml": "size: medium\nregion: eu\n",
}

func withFiles(base map[string]string, more map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

// Helm options in Argo CD's precedence: value files in order, then inline
// values (valuesObject over values), then parameters; releaseName names
// the release, the destination namespace is the release namespace.
func TestHelmOptions(t *testing.T) {
	root := writeRepo(t, withFiles(chartFiles, map[string]string{
		"argocd/prod.yaml": application("web-prod", "shop", "charts/web", `    helm:
      releaseName: storefront
      valueFiles:
        - values-prod.yaml
        - values-region.yaml
      values: |
        color: from-values
        region: from-values
      valuesObject:
        color: from-values-object
      parameters:
        - name: replicas
          value: "3"
        - name: revision
          value: $ARGOCD_APP_NAME`),
		"argocd/plain.yaml": application("web-plain", "plain", "charts/web", ""),
	}))
	res := build(t, root, Options{}, "argocd")
	prod := rendered(t, res, "argocd/web-prod")
	cm := find(t, prod, "ConfigMap", "storefront-web")
	for k, want := range map[string]string{
		"color":    "from-values-object", // valuesObject wins over values and files
		"size":     "medium",             // the later value file wins
		"region":   "eu",                 // values is ignored when valuesObject is set
		"replicas": "3",                  // parameters win over everything
		"revision": "web-prod",           // ${ARGOCD_APP_NAME} substituted
	} {
		if got := field(cm, "data", k); got != want {
			t.Errorf("web-prod data.%s = %q, want %q", k, got, want)
		}
	}
	if cm.Namespace != "shop" {
		t.Errorf("release namespace = %q, want the destination's", cm.Namespace)
	}
	if got := app(t, res, "argocd/web-prod").Sources[0].Tool; got != ToolHelm {
		t.Errorf("tool = %q", got)
	}
	plain := find(t, rendered(t, res, "argocd/web-plain"), "ConfigMap", "web-plain-web")
	if field(plain, "data", "color") != "default" {
		t.Errorf("web-plain color = %q, want the chart default", field(plain, "data", "color"))
	}
}

// values alone (no valuesObject) applies; a missing value file is an
// error unless ignoreMissingValueFiles.
func TestHelmValuesAndMissingFiles(t *testing.T) {
	root := writeRepo(t, withFiles(chartFiles, map[string]string{
		"argocd/a.yaml": application("a", "a", "charts/web", "    helm:\n      values: |\n        color: inline"),
		"argocd/b.yaml": application("b", "b", "charts/web", "    helm:\n      valueFiles: [missing.yaml]"),
		"argocd/c.yaml": application("c", "c", "charts/web", "    helm:\n      valueFiles: [missing.yaml, values-prod.yaml]\n      ignoreMissingValueFiles: true"),
	}))
	res := build(t, root, Options{}, "argocd")
	if got := field(find(t, rendered(t, res, "argocd/a"), "ConfigMap", "a-web"), "data", "color"); got != "inline" {
		t.Errorf("a color = %q", got)
	}
	if b := app(t, res, "argocd/b"); b.Err == nil || !strings.Contains(b.Err.Error(), "missing.yaml") {
		t.Errorf("b: want an error naming missing.yaml, got %v", b.Err)
	}
	if got := field(find(t, rendered(t, res, "argocd/c"), "ConfigMap", "c-web"), "data", "color"); got != "prod" {
		t.Errorf("c color = %q", got)
	}
}

// Kustomize options as Argo CD applies them with `kustomize edit`:
// namePrefix, images, namespace, patches, commonLabels.
func TestKustomizeOptions(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"apps/api/kustomization.yaml": "resources: [deploy.yaml, svc.yaml]\n",
		"apps/api/deploy.yaml": `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: 1
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
        - name: api
          image: registry.example.com/api:1.0
`,
		"apps/api/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: api\nspec:\n  selector: {app: api}\n  ports: [{port: 80}]\n",
		"argocd/api.yaml": application("api-prod", "ignored-dest", "apps/api", `    kustomize:
      namePrefix: prod-
      namespace: api-prod
      images:
        - registry.example.com/api:2.5
      commonLabels:
        tier: backend
      patches:
        - target:
            kind: Deployment
            name: api
          patch: |-
            - op: replace
              path: /spec/replicas
              value: 4`),
	})
	res := build(t, root, Options{}, "argocd")
	set := rendered(t, res, "argocd/api-prod")
	equal(t, "objects", objectKeys(set), []string{"Deployment api-prod/prod-api", "Service api-prod/prod-api"})
	d := find(t, set, "Deployment", "prod-api")
	spec := d.Body["spec"].(map[string]any)
	if r := spec["replicas"]; r != int64(4) && r != float64(4) && r != 4 {
		t.Errorf("replicas = %v (%T), want 4 from the patch", r, r)
	}
	c := spec["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	if c["image"] != "registry.example.com/api:2.5" {
		t.Errorf("image = %v", c["image"])
	}
	if l := d.Labels()["tier"]; l != "backend" {
		t.Errorf("commonLabels: tier = %q", l)
	}
	if app(t, res, "argocd/api-prod").Sources[0].Tool != ToolKustomize {
		t.Errorf("tool = %q", app(t, res, "argocd/api-prod").Sources[0].Tool)
	}
}

// Directory options: recurse, include, exclude, and jsonnet with ext vars,
// TLAs and a library directory; files that are not manifests are left out.
func TestDirectoryOptions(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"apps/plain/a.yaml":        configMap("a"),
		"apps/plain/sub/b.yaml":    configMap("b"),
		"apps/plain/sub/skip.yaml": configMap("skip"),
		"apps/plain/values.txt":    "not yaml: [\n",
		"apps/plain/sub/readme.md": "# notes\n",
		"apps/jsonnet/main.jsonnet": `
local lib = import 'naming.libsonnet';
function(replicas=1) [
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: lib.name(std.extVar('env')) },
    data: { replicas: std.toString(replicas), app: std.extVar('app') },
  },
]
`,
		"lib/naming.libsonnet": "{ name(env):: 'settings-' + env }\n",
		"argocd/flat.yaml":     application("flat", "flat", "apps/plain", ""),
		"argocd/deep.yaml": application("deep", "deep", "apps/plain", `    directory:
      recurse: true
      include: '*.yaml'
      exclude: '{sub/skip.yaml}'`),
		"argocd/jsonnet.yaml": application("js", "js", "apps/jsonnet", `    directory:
      jsonnet:
        libs: [lib]
        extVars:
          - name: env
            value: prod
          - name: app
            value: $ARGOCD_APP_NAME
        tlas:
          - name: replicas
            value: "3"
            code: true`),
	})
	res := build(t, root, Options{}, "argocd")
	equal(t, "flat", objectKeys(rendered(t, res, "argocd/flat")), []string{"ConfigMap a"})
	equal(t, "deep", objectKeys(rendered(t, res, "argocd/deep")), []string{"ConfigMap a", "ConfigMap b"})
	js := rendered(t, res, "argocd/js")
	cm := find(t, js, "ConfigMap", "settings-prod")
	if field(cm, "data", "replicas") != "3" || field(cm, "data", "app") != "js" {
		t.Errorf("jsonnet data = %v", cm.Body["data"])
	}
}

// Multi-source: the chart is one source, its value files come from a ref
// source ($values/...); a source of another repository is skipped with a
// notice and leaves its namespace "cannot check".
func TestMultiSource(t *testing.T) {
	root := writeRepo(t, withFiles(chartFiles, map[string]string{
		"envs/prod/web.yaml": "color: from-ref\n",
		"argocd/multi.yaml": `
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: web
  namespace: argocd
spec:
  project: default
  sources:
    - repoURL: ` + repoURL + `
      path: charts/web
      helm:
        valueFiles:
          - $values/envs/prod/web.yaml
    - repoURL: ` + repoURL + `
      targetRevision: main
      ref: values
    - repoURL: https://github.com/vendor/dashboards.git
      path: deploy
  destination:
    server: https://kubernetes.default.svc
    namespace: web
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: web-ext
  namespace: argocd
spec:
  project: default
  sources:
    - repoURL: ` + repoURL + `
      path: charts/web
      helm:
        valueFiles:
          - $config/envs/prod/web.yaml
    - repoURL: https://github.com/vendor/config.git
      ref: config
  destination:
    server: https://kubernetes.default.svc
    namespace: web-ext
`,
	}))
	res := build(t, root, Options{}, "argocd")
	a := app(t, res, "argocd/web")
	if a.Err != nil {
		t.Fatalf("web: %v", a.Err)
	}
	cm := find(t, a.Set, "ConfigMap", "web-web")
	if got := field(cm, "data", "color"); got != "from-ref" {
		t.Errorf("color = %q, want the $values file's", got)
	}
	if len(a.Sources) != 3 || a.Sources[0].Objects != 1 || a.Sources[1].Objects != 0 || a.Sources[2].Skipped == "" {
		t.Fatalf("sources = %+v", a.Sources)
	}
	if !strings.Contains(a.Sources[2].Skipped, "github.com/vendor/dashboards") {
		t.Errorf("skip reason %q does not name the repository", a.Sources[2].Skipped)
	}
	if len(a.Unrendered) != 1 || a.Unrendered[0].Namespace != "web" {
		t.Errorf("unrendered = %+v, want namespace web", a.Unrendered)
	}
	// A $ref value file from another repository cannot be read: the chart
	// source is skipped, not rendered without it.
	ext := app(t, res, "argocd/web-ext")
	if ext.Err != nil || len(ext.Sources) == 0 || !strings.Contains(ext.Sources[0].Skipped, "github.com/vendor/config") {
		t.Fatalf("web-ext: err %v, sources %+v; want the chart source skipped naming the ref's repository", ext.Err, ext.Sources)
	}
	if ext.Set.Len() != 0 || len(ext.Unrendered) != 1 || ext.Unrendered[0].Namespace != "web-ext" {
		t.Errorf("web-ext: %d objects, unrendered %+v", ext.Set.Len(), ext.Unrendered)
	}
}

// A directory app's manifest with a key defined twice renders as Argo CD
// renders it (the last value, sigs.k8s.io/yaml) with a warning naming
// file:line, never as an Application that does not render.
func TestDirectoryDuplicateKey(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"apps/job/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: first\n  mode: last\n",
		"argocd/job.yaml":    application("job", "jobs", "apps/job", ""),
		"apps/other/cm.yaml": configMap("other"),
		"argocd/other.yaml":  application("other", "other", "apps/other", ""),
	})
	res := build(t, root, Options{}, "argocd")
	cm := find(t, rendered(t, res, "argocd/job"), "ConfigMap", "settings")
	if got := field(cm, "data", "mode"); got != "last" {
		t.Errorf("mode = %q, want the last value", got)
	}
	if n := notices(res); !strings.Contains(n, `Application argocd/job: apps/job/cm.yaml:7: key "mode" is defined twice`) {
		t.Errorf("no warning naming the duplicate:\n%s", n)
	}
}

// An object a directory app defines twice renders as Argo CD applies it
// (the last one, RepeatedResourceWarning) with a warning, never as an
// Application that does not render.
func TestDirectoryRepeatedObject(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"apps/job/a.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: first\n",
		"apps/job/b.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: last\n",
		"argocd/job.yaml":    application("job", "jobs", "apps/job", ""),
		"apps/other/cm.yaml": configMap("other"),
		"argocd/other.yaml":  application("other", "other", "apps/other", ""),
	})
	res := build(t, root, Options{}, "argocd")
	cm := find(t, rendered(t, res, "argocd/job"), "ConfigMap", "settings")
	if got := field(cm, "data", "mode"); got != "last" {
		t.Errorf("mode = %q, want the last object's", got)
	}
	if n := notices(res); !strings.Contains(n, "Application argocd/job: ConfigMap") || !strings.Contains(n, "apps/job/b.yaml:1") || !strings.Contains(n, "RepeatedResourceWarning") {
		t.Errorf("no warning naming the repeated object:\n%s", n)
	}
}

// TestPluginWithoutName: a plugin source that names no plugin is offered
// by Argo CD to every sidecar's discovery rule. Without --cmp-discovery
// routeguard cannot claim it and skips it (another sidecar, such as a
// secrets plugin reading plugin.env, renders it; taking it for routeguard's
// made every such app an RG0009 error); with --cmp-discovery it renders
// what routeguard's opt-in rule matches (the .routeguard-cmp marker) and
// skips the rest, a .routeguard.yaml included.
func TestPluginWithoutName(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"argocd/secrets.yaml":           application("secrets", "vault", "apps/secrets", "    plugin:\n      env:\n        - {name: SECRET_PROVIDER, value: cluster-secrets}"),
		"argocd/routes.yaml":            application("routes", "web", "apps/routes", "    plugin: {}"),
		"apps/secrets/cm.yaml":          configMap("secrets"),
		"apps/routes/cm.yaml":           configMap("routes"),
		"apps/routes/.routeguard-cmp":   "",
		"apps/secrets/.routeguard.yaml": "failOn: error\n", // configuration, not the marker
	})
	for _, discovery := range []bool{false, true} {
		res := build(t, root, Options{PluginDiscovery: discovery}, "argocd")
		for key, rendered := range map[string]bool{"argocd/secrets": false, "argocd/routes": discovery} {
			a := app(t, res, key)
			if a.Err != nil {
				t.Errorf("discovery %v: %s: error %v, want it rendered or skipped", discovery, key, a.Err)
				continue
			}
			if rendered {
				if a.Set.Len() != 1 {
					t.Errorf("discovery %v: %s: %d objects, want its ConfigMap rendered by routeguard's plugin", discovery, key, a.Set.Len())
				}
				continue
			}
			if len(a.Sources) != 1 || !strings.Contains(a.Sources[0].Skipped, "names no config management plugin") {
				t.Errorf("discovery %v: %s: sources %+v, want the source skipped", discovery, key, a.Sources)
			}
		}
	}
}

// TestNotFetchedSkipped: an Application whose Kustomize source needs what
// routeguard does not fetch (a remote resource offline, the chart of a
// helmCharts entry that is not vendored) is skipped with the reason, its
// namespace unchecked, instead of failing as if it were broken (an RG0009
// error blocked repositories whose apps Argo CD renders fine).
func TestNotFetchedSkipped(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"argocd/remote.yaml":             application("remote", "ops", "apps/remote", ""),
		"argocd/chart.yaml":              application("chart", "web", "apps/chart", ""),
		"argocd/broken.yaml":             application("broken", "db", "apps/broken", ""),
		"apps/remote/kustomization.yaml": "resources:\n- https://github.com/example/operator/releases/download/v1.0.0/operator.yaml\n",
		"apps/chart/kustomization.yaml":  "helmCharts:\n- name: nginx\n  repo: https://charts.example.com\n  version: 1.0.0\n",
		"apps/broken/kustomization.yaml": "resources:\n- missing.yaml\n",
	})
	res := build(t, root, Options{}, "argocd")
	for key, want := range map[string]string{"argocd/remote": `is a remote resource (an HTTP(S) file), which routeguard does not fetch offline`, "argocd/chart": "routeguard does not download the charts of Kustomize helmCharts"} {
		a := app(t, res, key)
		if a.Err != nil {
			t.Errorf("%s: error %v, want the source skipped", key, a.Err)
			continue
		}
		if len(a.Sources) != 1 || !strings.Contains(a.Sources[0].Skipped, want) || len(a.Unrendered) != 1 {
			t.Errorf("%s: sources %+v, unrendered %+v; want the source skipped saying %q", key, a.Sources, a.Unrendered, want)
		}
	}
	if a := app(t, res, "argocd/broken"); a.Err == nil {
		t.Error("an app whose kustomization names a missing file rendered or was skipped; it is broken and must fail")
	}
}
