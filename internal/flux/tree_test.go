package flux

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/notice"
)

// homeLab is a repository of the shape flux bootstrap and the
// app-per-directory convention produce: a cluster directory with the sync
// GitRepository and Kustomization, a cluster-apps Kustomization over
// ./apps, one ks.yaml per app, app directories with configMapGenerator
// inputs that are not Kubernetes objects, a chart in Git, an
// OCIRepository chart, another repository's GitRepository, a Secret only
// the cluster has, a broken path, a dependsOn cycle and postBuild's null
// form.
var homeLab = map[string]string{
	"clusters/home/flux-system/kustomization.yaml": "resources: [gotk-sync.yaml]\n",
	"clusters/home/flux-system/gotk-sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 1m, url: "ssh://git@github.com/me/home.git", ref: {branch: main}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 10m, path: ./clusters/home, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
`,
	// Not a Kubernetes object, and not in the kustomization.yaml: Flux
	// never reads it; the entry scan must leave it out.
	"clusters/home/flux-system/notes.yaml": "todo:\n  - upgrade flux\n",
	"clusters/home/apps.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: cluster-apps, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
`,
	"clusters/home/vars.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: cluster-settings, namespace: flux-system}
data: {DOMAIN: example.com}
---
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata: {name: cluster-secrets, namespace: flux-system}
spec: {secretStoreRef: {kind: ClusterSecretStore, name: vault}, target: {name: cluster-secrets}}
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: other-repo, namespace: flux-system}
spec: {interval: 1m, url: "https://github.com/someone/else.git", ref: {branch: main}}
`,
	"apps/web/kustomization.yaml": "resources: [namespace.yaml, echo/ks.yaml, other/ks.yaml, broken/ks.yaml, chart/ks.yaml, oci/ks.yaml, nullpb/ks.yaml, cyc/ks.yaml]\n",
	"apps/web/namespace.yaml":     "apiVersion: v1\nkind: Namespace\nmetadata: {name: web}\n",
	"apps/web/echo/ks.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: echo, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps/web/echo/app
  targetNamespace: web
  dependsOn: [{name: chart}]
  sourceRef: {kind: GitRepository, name: flux-system}
  postBuild:
    substitute: {APP: echo}
    substituteFrom:
      - {kind: ConfigMap, name: cluster-settings}
      - {kind: Secret, name: cluster-secrets}
`,
	"apps/web/echo/app/kustomization.yaml": "resources: [route.yaml, service.yaml]\nconfigMapGenerator:\n  - name: echo-config\n    files: [config.yaml]\n",
	"apps/web/echo/app/config.yaml":        "server:\n  port: 8080\n  greeting: hello\n",
	"apps/web/echo/app/service.yaml":       "apiVersion: v1\nkind: Service\nmetadata: {name: echo}\nspec: {ports: [{port: 80}]}\n",
	"apps/web/echo/app/route.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: ${APP}
spec:
  hostnames: ["${APP}.${DOMAIN}", "${SECRET_HOST}"]
  rules: [{backendRefs: [{name: echo, port: 80}]}]
`,
	"apps/web/other/ks.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: other, namespace: flux-system}
spec: {interval: 10m, path: ./deploy, targetNamespace: other, sourceRef: {kind: GitRepository, name: other-repo}}
`,
	"apps/web/broken/ks.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: broken, namespace: flux-system}
spec: {interval: 10m, path: ./apps/web/broken/missing, sourceRef: {kind: GitRepository, name: flux-system}}
`,
	"apps/web/chart/ks.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: chart, namespace: flux-system}
spec: {interval: 10m, path: ./apps/web/chart/app, sourceRef: {kind: GitRepository, name: flux-system}}
`,
	"apps/web/chart/app/helmrelease.yaml": `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: web, namespace: web}
spec:
  interval: 10m
  chart:
    spec:
      chart: ./charts/web
      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}
  values: {port: 8081}
`,
	"charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
	"charts/web/templates/service.yaml": `apiVersion: v1
kind: Service
metadata: {name: {{ .Release.Name }}-svc}
spec: {ports: [{port: {{ .Values.port }}}]}
`,
	"apps/web/oci/ks.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: oci, namespace: flux-system}
spec: {interval: 10m, path: ./apps/web/oci/app, sourceRef: {kind: GitRepository, name: flux-system}}
`,
	"apps/web/oci/app/release.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata: {name: podinfo, namespace: web}
spec: {interval: 1h, url: oci://ghcr.io/stefanprodan/charts/podinfo, ref: {tag: 6.7.0}}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: podinfo, namespace: web}
spec:
  interval: 10m
  chartRef: {kind: OCIRepository, name: podinfo}
`,
	"apps/web/nullpb/ks.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: nullpb, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps/web/nullpb/app
  sourceRef: {kind: GitRepository, name: flux-system}
  postBuild:
    substitute: null
`,
	"apps/web/nullpb/app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: nullpb, namespace: web}\ndata: {kept: \"${NOT_SUBSTITUTED:=x}\"}\n",
	"apps/web/cyc/ks.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: cyc-a, namespace: flux-system}
spec: {interval: 10m, path: ./apps/web/cyc/a, dependsOn: [{name: cyc-b}], sourceRef: {kind: GitRepository, name: flux-system}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: cyc-b, namespace: flux-system}
spec: {interval: 10m, path: ./apps/web/cyc/b, dependsOn: [{name: cyc-a}], sourceRef: {kind: GitRepository, name: flux-system}}
`,
	"apps/web/cyc/a/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: web}\n",
	"apps/web/cyc/b/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: web}\n",
}

func writeRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func findingsWith(r *Result, code, object string) []analysis.Finding {
	var out []analysis.Finding
	for _, f := range r.Findings {
		if f.Code == code && f.Object.String() == object {
			out = append(out, f)
		}
	}
	return out
}

func TestBuildTreeHomeLab(t *testing.T) {
	root := writeRepo(t, homeLab)
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/home"), Strict: StrictOn})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range res.Nodes {
		if n.Reason != "" {
			t.Logf("%s %s: %s", n, n.Status, n.Reason)
		}
	}
	status := map[string]Status{}
	for _, n := range res.Nodes {
		status[n.String()] = n.Status
	}
	want := map[string]Status{
		"Kustomization flux-system/flux-system": Built, "Kustomization flux-system/cluster-apps": Built,
		"Kustomization flux-system/echo": Built, "Kustomization flux-system/chart": Built, "Kustomization flux-system/oci": Built,
		"Kustomization flux-system/nullpb": Built, "Kustomization flux-system/cyc-a": Built, "Kustomization flux-system/cyc-b": Built,
		"Kustomization flux-system/other": Skipped, "Kustomization flux-system/broken": Failed,
		"HelmRelease web/web": Built, "HelmRelease web/podinfo": Skipped,
	}
	for k, w := range want {
		if status[k] != w {
			t.Errorf("%s: %s, want %s", k, status[k], w)
		}
	}
	if len(status) != len(want) {
		t.Errorf("nodes %v, want %d of them", status, len(want))
	}
	if s := res.Stats; s.Kustomizations != 8 || s.HelmReleases != 1 || s.Skipped != 2 || s.Failed != 1 {
		t.Errorf("stats %+v", s)
	}
	if s := res.Stats.Summary(); !strings.Contains(s, "built 8 Kustomizations, rendered 1 HelmReleases, skipped 2 (1 another Git repository, 1 chart needs the network), failed 1") {
		t.Errorf("summary %q", s)
	}

	// Every unbuilt node is a finding naming it and why.
	if f := findingsWith(res, analysis.CodeFluxBuildFailed, "Kustomization flux-system/broken"); len(f) != 1 || !strings.Contains(f[0].Message, `spec.path "./apps/web/broken/missing": no such directory`) || f[0].Source.String() != "apps/web/broken/ks.yaml:1" {
		t.Errorf("broken: %+v", f)
	}
	if f := findingsWith(res, analysis.CodeNotBuilt, "Kustomization flux-system/other"); len(f) != 1 || !strings.Contains(f[0].Message, "GitRepository flux-system/other-repo (https://github.com/someone/else.git, branch main") || !strings.Contains(f[0].Message, "another repository") {
		t.Errorf("other: %+v", f)
	}
	if f := findingsWith(res, analysis.CodeNotBuilt, "HelmRelease web/podinfo"); len(f) != 1 || !strings.Contains(f[0].Message, "OCIRepository web/podinfo") {
		t.Errorf("podinfo: %+v", f)
	}
	if f := findingsWith(res, analysis.CodeDependsOnCycle, "Kustomization flux-system/cyc-a"); len(f) != 1 || !strings.Contains(f[0].Message, "cyc-a -> Kustomization flux-system/cyc-b -> Kustomization flux-system/cyc-a") {
		t.Errorf("cycle: %+v (all %+v)", f, res.Findings)
	}
	// What the skipped nodes would create is "cannot check", not missing.
	covered := func(ns string) bool {
		for _, u := range res.Unrendered {
			if u.Namespace == ns && strings.Contains(u.Reason, "podinfo") {
				return true
			}
		}
		return false
	}
	if !covered("web") {
		t.Errorf("no unrendered scope for the podinfo release in web: %+v", res.Unrendered)
	}

	// The child Kustomization was built from the object as applied:
	// targetNamespace, configMapGenerator over a non-object YAML file,
	// substitution from the cluster ConfigMap, placeholders for the Secret
	// only the cluster has.
	route, ok := res.Objects.Lookup("gateway.networking.k8s.io", "HTTPRoute", "web", "echo")
	if !ok {
		t.Fatalf("HTTPRoute web/echo not built; objects: %d", res.Objects.Len())
	}
	if h := field.Strings(route.Body, "spec", "hostnames"); !slices.Equal(h, []string{"echo.example.com", Placeholder("SECRET_HOST")}) {
		t.Errorf("hostnames %v", h)
	}
	if route.Source.File != "apps/web/echo/app/route.yaml" {
		t.Errorf("route source %s", route.Source)
	}
	generated := false
	for _, o := range res.Objects.ByKind("", "ConfigMap") {
		if strings.HasPrefix(o.Name, "echo-config-") && o.Namespace == "web" && strings.Contains(field.String(o.Body, "data", "config.yaml"), "greeting: hello") {
			generated = true
		}
	}
	if !generated {
		t.Errorf("configMapGenerator output missing")
	}
	if !slices.ContainsFunc(res.Notices, func(n notice.Notice) bool {
		return strings.Contains(n.Text, "Secret flux-system/cluster-secrets is made in the cluster by ExternalSecret flux-system/cluster-secrets") && strings.Contains(n.Text, "SECRET_HOST")
	}) {
		t.Errorf("no notice for the cluster-only Secret: %+v", res.Notices)
	}
	// The chart in Git was rendered with the release's values.
	svc, ok := res.Objects.Lookup("", "Service", "web", "web-svc")
	if !ok || field.Get(svc.Body, "spec", "ports").([]any)[0].(map[string]any)["port"] != int64(8081) && field.Get(svc.Body, "spec", "ports").([]any)[0].(map[string]any)["port"] != float64(8081) {
		t.Errorf("chart Service: %v %v", ok, svc)
	}
	// postBuild: {substitute: null} is accepted; with no variables Flux
	// runs no substitution (fluxcd/pkg/kustomize: len(vars) > 0).
	if cm, ok := res.Objects.Lookup("", "ConfigMap", "web", "nullpb"); !ok || field.String(cm.Body, "data", "kept") != "${NOT_SUBSTITUTED:=x}" {
		t.Errorf("nullpb ConfigMap: %v %v", ok, cm)
	}
	// dependsOn orders the output: chart before echo.
	idx := func(name string) int {
		return slices.IndexFunc(res.Nodes, func(n *Node) bool { return n.String() == name })
	}
	if idx("Kustomization flux-system/chart") > idx("Kustomization flux-system/echo") {
		t.Errorf("echo (dependsOn chart) ordered before chart")
	}
	if !slices.ContainsFunc(res.SkippedFiles, func(s string) bool { return strings.Contains(s, "clusters/home/flux-system/notes.yaml") }) {
		t.Errorf("notes.yaml not listed as left out: %v", res.SkippedFiles)
	}
}

// TestBuildTreeSourcesMapped: --source maps another repository to a
// directory, and the same URL and ref as the sync's is this checkout.
func TestBuildTreeSourcesMapped(t *testing.T) {
	root := writeRepo(t, homeLab)
	other := writeRepo(t, map[string]string{"deploy/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-other}\n"})
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/home"), Strict: StrictOn,
		Sources: map[SourceKey]string{{Kind: "GitRepository", Namespace: "flux-system", Name: "other-repo"}: other}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Objects.Lookup("", "ConfigMap", "other", "from-other"); !ok {
		t.Errorf("mapped source not built")
	}
	if res.Stats.Skipped != 1 {
		t.Errorf("skipped %d, want 1 (podinfo)", res.Stats.Skipped)
	}

	// A GitRepository with this checkout's URL (another spelling) and ref
	// is this checkout.
	files := maps2(homeLab)
	files["clusters/home/vars.yaml"] = strings.Replace(files["clusters/home/vars.yaml"], "https://github.com/someone/else.git", "https://github.com/me/home", 1)
	files["apps/web/other/ks.yaml"] = strings.Replace(files["apps/web/other/ks.yaml"], "./deploy", "./apps/web/cyc/a", 1)
	root = writeRepo(t, files)
	res, err = BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/home")})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range res.Nodes {
		if n.String() == "Kustomization flux-system/other" && n.Status != Built {
			t.Errorf("other (same repository): %s %s", n.Status, n.Reason)
		}
	}
}

func maps2(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestBuildTreeDeterministic: two runs give the same objects in the same
// order.
func TestBuildTreeDeterministic(t *testing.T) {
	root := writeRepo(t, homeLab)
	var prev []string
	for i := range 3 {
		res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/home"), Workers: i + 1})
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, o := range res.Objects.Objects() {
			keys = append(keys, o.String()+"@"+o.Source.String())
		}
		for _, f := range res.Findings {
			keys = append(keys, f.Code+" "+f.Object.String()+" "+f.Message)
		}
		if prev != nil && !slices.Equal(prev, keys) {
			t.Fatalf("run %d differs:\n%v\nvs\n%v", i, keys, prev)
		}
		prev = keys
	}
}

// TestBuildTreeRemoteBase: a remote resource is never fetched without
// AllowNetwork (the node is skipped, naming the file and the resource);
// with it, Kustomize fetches it (here from loopback).
func TestBuildTreeRemoteBase(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: remote, namespace: web}\n")
	}))
	defer srv.Close()
	files := maps2(homeLab)
	files["apps/web/nullpb/app/kustomization.yaml"] = "resources: [cm.yaml, " + srv.URL + "/remote.yaml]\n"
	root := writeRepo(t, files)
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/home")})
	if err != nil {
		t.Fatal(err)
	}
	if hits.Load() != 0 {
		t.Errorf("offline build reached the network (%d requests)", hits.Load())
	}
	// Built without the remote resource: partly, with a warning naming
	// file:line and what kind of remote it is, and an unrendered scope.
	n := nodeOf(t, res, "Kustomization flux-system/nullpb")
	if n.Status != Built || len(n.Partial) != 1 || !strings.Contains(n.Partial[0], `apps/web/nullpb/app/kustomization.yaml:1: resources "`+srv.URL+`/remote.yaml" is a remote resource (an HTTP(S) file)`) ||
		!strings.Contains(n.Partial[0], "--allow-network") || len(n.Unrendered) == 0 {
		t.Errorf("remote base offline: %s %s partial %v unrendered %v", n.Status, n.Reason, n.Partial, n.Unrendered)
	}
	if _, ok := res.Objects.Lookup("", "ConfigMap", "web", "nullpb"); !ok {
		t.Errorf("the rest of the Kustomization was not built")
	}
	if res.Stats.Partial != 1 || len(findingsWith(res, analysis.CodeNotBuilt, "Kustomization flux-system/nullpb")) != 0 {
		t.Errorf("summary: %s; findings %+v", res.Stats.Summary(), res.Findings)
	}
	res, err = BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/home"), AllowNetwork: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Objects.Lookup("", "ConfigMap", "web", "remote"); !ok || hits.Load() == 0 {
		t.Errorf("with the network the remote resource was not built (%d requests)", hits.Load())
	}
	// A patch of what the remote resource holds: the build fails without
	// it, so it is not built here (not failing).
	files["apps/web/nullpb/app/kustomization.yaml"] = "resources: [cm.yaml, " + srv.URL + "/remote.yaml]\npatches:\n  - path: p.yaml\n"
	files["apps/web/nullpb/app/p.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: remote, namespace: web}\ndata: {x: y}\n"
	root = writeRepo(t, files)
	res, err = BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/home")})
	if err != nil {
		t.Fatal(err)
	}
	if f := findingsWith(res, analysis.CodeNotBuilt, "Kustomization flux-system/nullpb"); len(f) != 1 || !strings.Contains(f[0].Message, "it does not build without it") ||
		res.Stats.SkippedBy["remote base needs the network"] != 1 {
		t.Errorf("remote base the build needs: %+v; %s", f, res.Stats.Summary())
	}
}

// TestBuildTreeRemoteFilesOffline: every string Kustomize would fetch over
// HTTP, not only resources, keeps an offline build off the network: a
// generator's file (key=URL), a patch's path.
func TestBuildTreeRemoteFilesOffline(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "{}")
	}))
	defer srv.Close()
	for _, tc := range []struct{ name, kustomization, field, what string }{
		{"configMapGenerator file", "resources: [cm.yaml]\nconfigMapGenerator:\n  - name: dash\n    files: [\"dash.json=" + srv.URL + "/dash.json\"]\n", "configMapGenerator[].files", "a remote generator input (an HTTP(S) file)"},
		{"secretGenerator env", "resources: [cm.yaml]\nsecretGenerator:\n  - name: s\n    envs: [\"" + srv.URL + "/s.env\"]\n", "secretGenerator[].envs", "a remote generator input"},
		{"patch path", "resources: [cm.yaml]\npatches:\n  - path: " + srv.URL + "/p.yaml\n", "patches[].path", "a remote patch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := maps2(homeLab)
			files["apps/web/nullpb/app/kustomization.yaml"] = tc.kustomization
			root := writeRepo(t, files)
			res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/home")})
			if err != nil {
				t.Fatal(err)
			}
			if hits.Load() != 0 {
				t.Fatalf("offline build reached the network (%d requests)", hits.Load())
			}
			n := nodeOf(t, res, "Kustomization flux-system/nullpb")
			if n.Status != Built || len(n.Partial) != 1 || !strings.Contains(n.Partial[0], tc.field+` "`+srv.URL) || !strings.Contains(n.Partial[0], tc.what) {
				t.Errorf("want the Kustomization built without %s (%s): %s %s %v", tc.field, tc.what, n.Status, n.Reason, n.Partial)
			}
			// A file or patch adds no object: no unrendered scope.
			if len(n.Unrendered) != 0 {
				t.Errorf("unrendered %v", n.Unrendered)
			}
			if f := findingsWith(res, analysis.CodeFluxBuildFailed, "Kustomization flux-system/nullpb"); len(f) != 0 {
				t.Errorf("a remote file offline is a build failure: %+v", f)
			}
		})
	}
}

// TestBuildTreeLateSource: when the tree is stuck (every pending node waits
// for something), nodes are built with what there is; one that took a
// Secret for a cluster-only one is built again once a node built later
// applies the object that makes it.
func TestBuildTreeLateSource(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"clusters/c/flux-system/kustomization.yaml": "resources: [sync.yaml]\n",
		"clusters/c/flux-system/sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 1m, url: "https://example.com/c.git"}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 10m, path: ./clusters/c, sourceRef: {kind: GitRepository, name: flux-system}}
`,
		"clusters/c/ks.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: a-uses, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps/uses
  sourceRef: {kind: GitRepository, name: flux-system}
  postBuild: {substituteFrom: [{kind: Secret, name: late-secret}]}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: b-makes, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps/makes
  sourceRef: {kind: GitRepository, name: flux-system}
  postBuild: {substituteFrom: [{kind: ConfigMap, name: never-there}]}
`,
		"apps/uses/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: uses, namespace: web}\ndata: {host: \"${HOST}\"}\n",
		"apps/makes/es.yaml": `apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata: {name: late-secret, namespace: flux-system}
spec: {secretStoreRef: {kind: ClusterSecretStore, name: vault}, target: {name: late-secret}}
`,
	})
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/c"), Strict: StrictOn})
	if err != nil {
		t.Fatal(err)
	}
	if f := findingsWith(res, analysis.CodeClusterOnlySource, "Kustomization flux-system/a-uses"); len(f) != 0 {
		t.Errorf("a-uses still takes late-secret for one nothing makes: %+v", f)
	}
	if f := findingsWith(res, analysis.CodeClusterOnlySource, "Kustomization flux-system/b-makes"); len(f) != 1 || !strings.Contains(f[0].Message, "ConfigMap flux-system/never-there") {
		t.Errorf("b-makes: %+v", f)
	}
	if !slices.ContainsFunc(res.Notices, func(n notice.Notice) bool {
		return strings.Contains(n.Text, "Secret flux-system/late-secret is made in the cluster by ExternalSecret flux-system/late-secret") && strings.Contains(n.Text, "HOST")
	}) {
		t.Errorf("notices: %+v", res.Notices)
	}
	if cm, ok := res.Objects.Lookup("", "ConfigMap", "web", "uses"); !ok || field.String(cm.Body, "data", "host") != Placeholder("HOST") {
		t.Errorf("uses ConfigMap: %v", cm)
	}
	if res.Stats.Kustomizations != 3 {
		t.Errorf("%s", res.Stats.Summary())
	}
}

// TestBuildTreeArtifactGenerator: a Kustomization on an ExternalArtifact
// that an ArtifactGenerator of the tree assembles from this checkout is
// built from the assembled artifact (files keep their repository paths);
// one assembled from another repository is skipped, naming both.
func TestBuildTreeArtifactGenerator(t *testing.T) {
	files := maps2(homeLab)
	files["clusters/home/generator.yaml"] = `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: ArtifactGenerator
metadata: {name: bundles, namespace: flux-system}
spec:
  sources:
    - {alias: repo, kind: GitRepository, name: flux-system}
  artifacts:
    - name: cyc-bundle
      copy:
        - {from: "@repo/apps/web/cyc/a/**", to: "@artifact/a/"}
        - {from: "@repo/apps/web/cyc/b/cm.yaml", to: "@artifact/b/cm.yaml"}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: from-artifact, namespace: flux-system}
spec:
  interval: 10m
  path: ./
  targetNamespace: bundle
  sourceRef: {kind: ExternalArtifact, name: cyc-bundle}
`
	root := writeRepo(t, files)
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/home")})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		o, ok := res.Objects.Lookup("", "ConfigMap", "bundle", name)
		if !ok {
			t.Errorf("ConfigMap bundle/%s not built from the artifact; nodes: %v", name, res.Stats.Summary())
			continue
		}
		if want := "apps/web/cyc/" + name + "/cm.yaml"; o.Source.File != want {
			t.Errorf("ConfigMap bundle/%s: source %s, want %s", name, o.Source, want)
		}
	}
	for _, n := range res.Nodes {
		if n.String() == "Kustomization flux-system/from-artifact" && n.Status != Built {
			t.Errorf("from-artifact: %s %s", n.Status, n.Reason)
		}
	}

	// A source of another repository: skipped, naming the artifact, the
	// generator and the source.
	files["clusters/home/generator.yaml"] = strings.Replace(files["clusters/home/generator.yaml"], "    - {alias: repo, kind: GitRepository, name: flux-system}\n",
		"    - {alias: repo, kind: GitRepository, name: flux-system}\n    - {alias: other, kind: GitRepository, name: other-repo}\n", 1)
	root = writeRepo(t, files)
	if res, err = BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/home")}); err != nil {
		t.Fatal(err)
	}
	f := findingsWith(res, analysis.CodeNotBuilt, "Kustomization flux-system/from-artifact")
	if len(f) != 1 || !strings.Contains(f[0].Message, "ExternalArtifact flux-system/cyc-bundle, is assembled by ArtifactGenerator flux-system/bundles (clusters/home/generator.yaml:1) from GitRepository/flux-system/other-repo") {
		t.Errorf("other source: %+v", f)
	}
}

// TestBuildTreeRebuiltParentRefreshesChildren: a Kustomization built again
// once a late ConfigMap is applied produces a different child (its
// targetNamespace is substituted); the child is built again from the new
// object and what it built from the old one is gone.
func TestBuildTreeRebuiltParentRefreshesChildren(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"clusters/c/flux-system/kustomization.yaml": "resources: [sync.yaml]\n",
		"clusters/c/flux-system/sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 1m, url: "https://example.com/c.git"}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 10m, path: ./clusters/c, sourceRef: {kind: GitRepository, name: flux-system}}
`,
		"clusters/c/ks.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: a-parent, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps/parent
  sourceRef: {kind: GitRepository, name: flux-system}
  postBuild: {substituteFrom: [{kind: ConfigMap, name: late-vars}]}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: b-makes, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps/makes
  sourceRef: {kind: GitRepository, name: flux-system}
  postBuild: {substituteFrom: [{kind: ConfigMap, name: never-there}]}
`,
		"apps/parent/child.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: child, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps/child
  targetNamespace: ${TEAM_NS:=fallback}
  sourceRef: {kind: GitRepository, name: flux-system}
`,
		"apps/child/svc.yaml":  "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n",
		"apps/makes/vars.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: late-vars, namespace: flux-system}\ndata: {TEAM_NS: shop}\n",
	})
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/c")})
	if err != nil {
		t.Fatal(err)
	}
	ks, ok := res.Objects.Lookup(KustomizeGroup, "Kustomization", "flux-system", "child")
	if !ok || field.String(ks.Body, "spec", "targetNamespace") != "shop" {
		t.Fatalf("child Kustomization as the cluster holds it: %v", ks)
	}
	if _, ok := res.Objects.Lookup("", "Service", "shop", "web"); !ok {
		t.Errorf("the child was not built again from its new object: Service shop/web missing")
	}
	if o, ok := res.Objects.Lookup("", "Service", "fallback", "web"); ok {
		t.Errorf("the child's build from its old object is still there: %v", o)
	}
	if res.Stats.Kustomizations != 4 {
		t.Errorf("%s", res.Stats.Summary())
	}
}

// TestBuildTreeOptionalSourceOutsideTree: the home-lab pattern of a
// cluster Kustomization that patches every child with optional
// substituteFrom sources (cluster-settings, cluster-secrets), which
// bootstrap creates in flux-system outside the tree. Flux leaves a
// variable only they set as written when they are missing; routeguard
// cannot tell whether the cluster holds them, so it stands for them with
// placeholders and says so (a hostname "${SECRET_DOMAIN}" as written is no
// valid hostname: judging it was a false error). A variable another source
// sets needs no stand-in, and a source applied later in the tree is read.
func TestBuildTreeOptionalSourceOutsideTree(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"clusters/c/flux-system/kustomization.yaml": "resources: [sync.yaml]\n",
		"clusters/c/flux-system/sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 1m, url: "https://example.com/c.git"}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 10m, path: ./clusters/c, sourceRef: {kind: GitRepository, name: flux-system}}
`,
		"clusters/c/ks.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: web, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps/web
  sourceRef: {kind: GitRepository, name: flux-system}
  postBuild:
    substitute: {APP: shop}
    substituteFrom:
      - {kind: ConfigMap, name: cluster-settings, optional: true}
      - {kind: Secret, name: cluster-secrets, optional: true}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: plain, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps/plain
  sourceRef: {kind: GitRepository, name: flux-system}
  postBuild:
    substitute: {APP: blog}
    substituteFrom:
      - {kind: Secret, name: cluster-user-secrets, optional: true}
`,
		"apps/web/route.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: "${APP}", namespace: web}
spec:
  hostnames: ["${APP}.${SECRET_DOMAIN}"]
  rules: [{backendRefs: [{name: web, port: 80}]}]
`,
		"apps/plain/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: \"${APP}\", namespace: web}\ndata: {tier: \"${TIER:=free}\"}\n",
	})
	for _, strict := range []Strictness{StrictOff, StrictOn} {
		res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/c"), Strict: strict})
		if err != nil {
			t.Fatal(err)
		}
		route, ok := res.Objects.Lookup("gateway.networking.k8s.io", "HTTPRoute", "web", "shop")
		if !ok {
			t.Fatalf("strict %v: no HTTPRoute web/shop among %d objects", strict, res.Objects.Len())
		}
		if got, want := field.Strings(route.Body, "spec", "hostnames"), []string{"shop." + Placeholder("SECRET_DOMAIN")}; !slices.Equal(got, want) {
			t.Errorf("strict %v: hostnames %v, want %v", strict, got, want)
		}
		var optionalNotes []string
		for _, n := range res.Notices {
			if strings.Contains(n.Text, "optional and not in the repository") {
				optionalNotes = append(optionalNotes, n.Text)
			}
		}
		// One note per source web reads (the placeholders named on the
		// first), none for plain's, whose variables all have a value.
		if len(optionalNotes) != 2 || !strings.Contains(optionalNotes[0], "ConfigMap flux-system/cluster-settings") ||
			!strings.Contains(optionalNotes[0], "stand for SECRET_DOMAIN") || !strings.Contains(optionalNotes[1], "Secret flux-system/cluster-secrets") {
			t.Errorf("strict %v: want a note on each optional source web reads, naming SECRET_DOMAIN: %q", strict, optionalNotes)
		}
		if f := findingsWith(res, analysis.CodeClusterOnlySource, "Kustomization flux-system/web"); len(f) != 0 {
			t.Errorf("strict %v: an optional source is a finding: %+v", strict, f)
		}
		if cm, ok := res.Objects.Lookup("", "ConfigMap", "web", "blog"); !ok || field.String(cm.Body, "data", "tier") != "free" {
			t.Errorf("strict %v: plain's ConfigMap (defaults only): %v", strict, cm)
		}
	}
}

// TestBuildTreeIgnoreReincludesUnderExcludedDir: spec.ignore "/*" then
// "!/k8s/c0" archives k8s/c0/... although the directory k8s is excluded:
// source-controller walks into excluded directories and judges every
// file (the last matching pattern wins), unlike git, which prunes them.
func TestBuildTreeIgnoreReincludesUnderExcludedDir(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"k8s/c0/flux/kustomization.yaml": "resources: [sync.yaml, apps.yaml]\n",
		"k8s/c0/flux/sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: repo, namespace: flux-system}
spec:
  interval: 1m
  url: "https://example.com/c.git"
  ignore: |
    /*
    !/k8s/c0
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 10m, path: ./k8s/c0/flux, sourceRef: {kind: GitRepository, name: repo}}
`,
		"k8s/c0/flux/apps.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec: {interval: 10m, path: ./k8s/c0/apps, sourceRef: {kind: GitRepository, name: repo}}
`,
		"k8s/c0/apps/kustomization.yaml": "resources: [cm.yaml]\n",
		"k8s/c0/apps/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kept, namespace: web}\n",
		// Excluded: under /* and not re-included.
		"k8s/other/kustomization.yaml": "resources: [cm.yaml]\n",
		"k8s/other/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dropped, namespace: web}\n",
	})
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "k8s/c0/flux")})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Objects.Lookup("", "ConfigMap", "web", "kept"); !ok {
		t.Errorf("ConfigMap web/kept (under the re-included k8s/c0) not built; findings: %+v", res.Findings)
	}
	for _, f := range res.Findings {
		if f.Severity == analysis.SeverityError {
			t.Errorf("error finding: %s %s", f.Code, f.Message)
		}
	}
}

// TestBuildTreeChartSourceMissing: a HelmRelease whose HelmRepository the
// tree applies nowhere (and no unbuilt node may hold) is a warning — as a
// dependsOn on nothing, helm-controller waits forever unless the source is
// made outside Git; one whose source only needs the network stays info.
func TestBuildTreeChartSourceMissing(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"clusters/c/flux-system/kustomization.yaml": "resources: [sync.yaml]\n",
		"clusters/c/flux-system/sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 1m, url: "https://example.com/c.git"}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 10m, path: ./clusters/c, sourceRef: {kind: GitRepository, name: flux-system}}
`,
		"clusters/c/releases.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata: {name: podinfo, namespace: flux-system}
spec: {interval: 1h, url: "https://stefanprodan.github.io/podinfo"}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: typo, namespace: web}
spec:
  interval: 1h
  chart: {spec: {chart: podinfo, sourceRef: {kind: HelmRepository, name: podinfoo, namespace: flux-system}}}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: ok, namespace: web}
spec:
  interval: 1h
  chart: {spec: {chart: podinfo, sourceRef: {kind: HelmRepository, name: podinfo, namespace: flux-system}}}
`,
	})
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/c")})
	if err != nil {
		t.Fatal(err)
	}
	typo := findingsWith(res, analysis.CodeNotBuilt, "HelmRelease web/typo")
	if len(typo) != 1 || typo[0].Severity != analysis.SeverityWarning || !strings.Contains(typo[0].Message, "HelmRepository flux-system/podinfoo") {
		t.Errorf("missing HelmRepository: %+v", typo)
	}
	ok := findingsWith(res, analysis.CodeNotBuilt, "HelmRelease web/ok")
	if len(ok) != 1 || ok[0].Severity == analysis.SeverityWarning {
		t.Errorf("a chart that only needs the network: %+v", ok)
	}
}

// TestBuildTreeFailureNamesRepoPaths: a Kustomize build that fails in the
// filtered copy of the repository (spec.ignore set) names the missing file
// by its path in the repository, never by the temporary copy's.
func TestBuildTreeFailureNamesRepoPaths(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"clusters/prod/sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: repo, namespace: flux-system}
spec:
  interval: 1m
  url: "https://example.com/c.git"
  ignore: |
    /*.md
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec: {interval: 10m, path: ./apps/web, sourceRef: {kind: GitRepository, name: repo}}
`,
		"apps/web/kustomization.yaml": "resources: [missing.yaml]\n",
	})
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/prod")})
	if err != nil {
		t.Fatal(err)
	}
	f := findingsWith(res, analysis.CodeFluxBuildFailed, "Kustomization flux-system/apps")
	if len(f) != 1 {
		t.Fatalf("want one RG0101 for apps, got %+v", res.Findings)
	}
	if msg := f[0].Message; !strings.Contains(msg, "open apps/web/missing.yaml") || strings.Contains(msg, os.TempDir()) || strings.Contains(msg, "routeguard-flux-") {
		t.Errorf("message names a temporary path or not the repository's: %s", msg)
	}
}

// TestBuildTreePathJoinedLikeFlux: kustomize-controller joins spec.path
// to the artifact with securejoin, so "/apps/web" is "./apps/web" and ".."
// never leaves the root ("../../apps/api" is "./apps/api"); both build
// (dcplaya/home-ops writes absolute paths), and neither reads outside.
func TestBuildTreePathJoinedLikeFlux(t *testing.T) {
	ks := func(name, path string) string {
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: " + name + ", namespace: flux-system}\n" +
			"spec: {interval: 10m, path: \"" + path + "\", sourceRef: {kind: GitRepository, name: flux-system}}\n---\n"
	}
	root := writeRepo(t, map[string]string{
		"clusters/prod/apps.yaml": ks("web", "/apps/web") + ks("api", "../../apps/api"),
		"apps/web/cm.yaml":        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: web}\n",
		"apps/api/cm.yaml":        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: api, namespace: api}\n",
	})
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/prod")})
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"web", "api"} {
		if _, ok := res.Objects.Lookup("", "ConfigMap", ns, ns); !ok {
			t.Errorf("ConfigMap %s/%s not built; findings: %+v", ns, ns, res.Findings)
		}
	}
	for _, f := range res.Findings {
		if f.Severity == analysis.SeverityError {
			t.Errorf("error finding: %s %s", f.Code, f.Message)
		}
	}
}

// TestBuildTreeInvalidVariableNameBlamesItsObject: "${1}" (a regex
// replacement written unescaped) under strict substitution fails the
// object that holds it, as in kustomize-controller; routeguard's
// placeholder for a cluster-only Secret is never given that name, which
// Flux refuses for every object (it blamed the first object of the build).
func TestBuildTreeInvalidVariableNameBlamesItsObject(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"clusters/prod/apps.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps
  sourceRef: {kind: GitRepository, name: flux-system}
  postBuild:
    substituteFrom:
      - {kind: Secret, name: cluster-secrets}
`,
		"apps/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a-first, namespace: web}\ndata: {host: \"web.${DOMAIN}\"}\n",
		"apps/z.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: z-relabel, namespace: web}\ndata:\n  note: x\n  replacement: \"${1}://${2}\"\n",
	})
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/prod"), Strict: StrictOn})
	if err != nil {
		t.Fatal(err)
	}
	f := findingsWith(res, analysis.CodeFluxBuildFailed, "Kustomization flux-system/apps")
	if len(f) != 1 {
		t.Fatalf("want one RG0101 for apps, got %+v", res.Findings)
	}
	for _, want := range []string{"apps/z.yaml:6: ConfigMap web/z-relabel", `variable not set (strict mode): "1"`, "escape it as $${name}"} {
		if !strings.Contains(f[0].Message, want) {
			t.Errorf("message lacks %q: %s", want, f[0].Message)
		}
	}
}

// TestBuildTreeFluxInstanceSyncSource: a cluster directory that
// flux-operator's FluxInstance syncs holds Kustomizations building from the
// GitRepository the FluxInstance makes (here under its own name, declared
// in no file): it is this checkout, with a note saying so, when the paths
// exist here; a path that does not exist here keeps it another repository.
func TestBuildTreeFluxInstanceSyncSource(t *testing.T) {
	ks := func(name, path string) string {
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: " + name + ", namespace: flux-system}\n" +
			"spec: {interval: 10m, path: \"" + path + "\", sourceRef: {kind: GitRepository, name: homelab-ops, namespace: flux-system}}\n---\n"
	}
	for _, tc := range []struct {
		name, apps string
		built      bool
	}{
		{"paths here", ks("cluster-apps", "./kubernetes/apps"), true},
		{"a path elsewhere", ks("cluster-apps", "./kubernetes/apps") + ks("other", "./not/here"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := writeRepo(t, map[string]string{
				"kubernetes/flux/cluster/cluster.yaml": tc.apps,
				"kubernetes/apps/cm.yaml":              "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: web}\n",
			})
			res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "kubernetes/flux/cluster")})
			if err != nil {
				t.Fatal(err)
			}
			_, built := res.Objects.Lookup("", "ConfigMap", "web", "web")
			note := slices.ContainsFunc(res.Notices, func(n notice.Notice) bool {
				return strings.Contains(n.Text, "GitRepository flux-system/homelab-ops, which the cluster directory's Kustomizations build from") && strings.Contains(n.Text, "--source GitRepository/flux-system/homelab-ops=DIR")
			})
			if built != tc.built || note != tc.built {
				t.Errorf("built %v, note %v; want %v; notices %+v findings %+v", built, note, tc.built, res.Notices, res.Findings)
			}
		})
	}
}

// TestBuildTreeBootstrapDirectoryNotAppliedTwice: a cluster directory
// applied by hand (kubectl apply -k, no sync Kustomization) whose
// Kustomization then applies the same directory again owns those objects:
// not RG0105, which stays for two Kustomizations applying one object.
func TestBuildTreeBootstrapDirectoryNotAppliedTwice(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"kubernetes/flux/config/cluster.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 30m, url: "https://example.com/home-ops.git", ref: {branch: main}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: cluster, namespace: flux-system}
spec: {interval: 30m, path: ./kubernetes/flux, sourceRef: {kind: GitRepository, name: flux-system}}
`,
		"kubernetes/flux/apps.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec: {interval: 30m, path: ./kubernetes/apps, sourceRef: {kind: GitRepository, name: flux-system}}
`,
		"kubernetes/apps/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shared, namespace: web}\n",
	})
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "kubernetes/flux/config")})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if f.Code == analysis.CodeAppliedTwice {
			t.Errorf("want no RG0105, got %s: %s", f.Object, f.Message)
		}
	}
	if _, ok := res.Objects.Lookup("", "ConfigMap", "web", "shared"); !ok {
		t.Errorf("the tree was not followed; findings %+v", res.Findings)
	}
}

// TestBuildTreeClusterExternalSecretMadeOnce: a ClusterExternalSecret
// that one Kustomization applies makes the substituteFrom Secret of every
// namespace, its own included — no RG0107 for either, whatever the build
// order (both were retried together, and the retry removed the maker).
func TestBuildTreeClusterExternalSecretMadeOnce(t *testing.T) {
	ks := func(name, ns, path, extra string) string {
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: " + name + ", namespace: " + ns + "}\n" +
			"spec:\n  interval: 10m\n  path: " + path + "\n  sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}\n" + extra + "---\n"
	}
	pb := "  postBuild:\n    substituteFrom:\n      - {kind: Secret, name: cluster-secrets}\n"
	root := writeRepo(t, map[string]string{
		"clusters/prod/apps.yaml": ks("onepassword", "external-secrets", "./apps/onepassword", "  targetNamespace: external-secrets\n"+pb) + ks("hugo", "blog", "./apps/hugo", "  targetNamespace: blog\n"+pb),
		"apps/onepassword/ces.yaml": `apiVersion: external-secrets.io/v1
kind: ClusterExternalSecret
metadata: {name: cluster-secrets}
spec:
  externalSecretName: cluster-secrets
  namespaceSelectors:
    - matchExpressions: [{key: x, operator: NotIn, values: ["true"]}]
  externalSecretSpec:
    secretStoreRef: {kind: ClusterSecretStore, name: onepassword}
    target: {name: cluster-secrets}
`,
		"apps/hugo/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: hugo}\ndata: {host: \"hugo.${SECRET_DOMAIN}\"}\n",
	})
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/prod"), Strict: StrictOn})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if f.Severity != analysis.SeverityInfo {
			t.Errorf("%s %s %s: %s", f.Severity, f.Code, f.Object, f.Message)
		}
	}
	for _, want := range []string{
		"Secret blog/cluster-secrets is made in the cluster by ClusterExternalSecret cluster-secrets:",
		"Secret external-secrets/cluster-secrets is made in the cluster by ClusterExternalSecret cluster-secrets, which this Kustomization applies",
	} {
		if !slices.ContainsFunc(res.Notices, func(n notice.Notice) bool { return strings.HasPrefix(n.Text, want) }) {
			t.Errorf("no notice %q in %+v", want, res.Notices)
		}
	}
}

// TestBuildTreeNothingChecked: a tree without routing objects is RG0100 at
// info when nothing it was built from holds routing, an error naming the
// unbuilt nodes and their routing files when some do (a silent pass
// otherwise).
func TestBuildTreeNothingChecked(t *testing.T) {
	files := map[string]string{
		"clusters/home/apps.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec: {interval: 1h, path: ./apps, sourceRef: {kind: GitRepository, name: flux-system}}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: web, namespace: web}
spec:
  chartRef: {kind: OCIRepository, name: app-template}
  values:
    route:
      app: {hostnames: [web.example.com]}
`,
		"apps/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: web}\n",
	}
	root := writeRepo(t, files)
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/home")})
	if err != nil {
		t.Fatal(err)
	}
	fs := res.NothingChecked(res.Objects, res.Nodes)
	if len(fs) != 1 || fs[0].Severity != 0 || !strings.Contains(fs[0].Message, "HelmRelease web/web (spec.values.route)") || !strings.Contains(fs[0].Message, "none of it was checked") {
		t.Fatalf("routing values not built: %+v", fs)
	}
	files["clusters/home/apps.yaml"] = strings.Replace(files["clusters/home/apps.yaml"], "    route:\n      app: {hostnames: [web.example.com]}\n", "    replicas: 2\n", 1)
	root = writeRepo(t, files)
	if res, err = BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/home")}); err != nil {
		t.Fatal(err)
	}
	fs = res.NothingChecked(res.Objects, res.Nodes)
	if len(fs) != 1 || fs[0].Severity != analysis.SeverityInfo || !strings.Contains(fs[0].Message, "it routes nothing") {
		t.Fatalf("no routing anywhere: %+v", fs)
	}
}

// TestBuildTreeLabelNotAString: an unquoted boolean label (true) fails the
// Kustomization naming the label and the fix, not Go's "unrecognized type:
// string".
func TestBuildTreeLabelNotAString(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"clusters/home/ks.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: arc\n  namespace: flux-system\n  labels:\n    substitution.flux/enabled: true\nspec: {interval: 1h, path: ./apps, sourceRef: {kind: GitRepository, name: flux-system}}\n",
		"apps/cm.yaml":          "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: web}\n",
	})
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/home")})
	if err != nil {
		t.Fatal(err)
	}
	fs := findingsWith(res, analysis.CodeFluxBuildFailed, "Kustomization flux-system/arc")
	if len(fs) != 1 || !strings.Contains(fs[0].Message, `metadata.labels[substitution.flux/enabled] is true, a bool`) || !strings.Contains(fs[0].Message, `quote the value ("true")`) {
		t.Fatalf("findings %+v", res.Findings)
	}
}

// TestBuildTreeGuessedSourceElsewhere: a cluster directory without a sync
// GitRepository that applies one GitRepository has it taken for this
// checkout; a Kustomization on it whose path is not here is another
// repository's (not built, naming the source and --source), not RG0101
// "fix the path".
func TestBuildTreeGuessedSourceElsewhere(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"clusters/home/sources.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: platform, namespace: flux-system}
spec: {interval: 1h, url: "https://github.com/example/platform.git", ref: {branch: main}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: platform-gateways, namespace: flux-system}
spec: {interval: 1h, path: ./deploy/gateways, sourceRef: {kind: GitRepository, name: platform}}
`,
	})
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/home")})
	if err != nil {
		t.Fatal(err)
	}
	if fs := findingsWith(res, analysis.CodeFluxBuildFailed, "Kustomization flux-system/platform-gateways"); len(fs) != 0 {
		t.Errorf("RG0101 for another repository's path: %+v", fs)
	}
	fs := findingsWith(res, analysis.CodeNotBuilt, "Kustomization flux-system/platform-gateways")
	if len(fs) != 1 || !strings.Contains(fs[0].Message, `spec.path "./deploy/gateways" is not in this checkout: its source, GitRepository flux-system/platform, was taken for this checkout because it is the only GitRepository the cluster directory applies`) ||
		!strings.Contains(fs[0].Message, "--source GitRepository/flux-system/platform=DIR") {
		t.Errorf("findings %+v", res.Findings)
	}
}

// TestBuildTreeSyncBelowPath: a cluster directory whose sync Kustomization
// (flux-system/flux-system) builds a directory below it is built from that
// Kustomization, as Flux builds it, not as the whole directory (which
// holds each Kustomization twice and fails to build).
func TestBuildTreeSyncBelowPath(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"clusters/home/flux-system/gotk-sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 1m, url: "ssh://git@github.com/me/home.git", ref: {branch: main}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 10m, path: ./clusters/home/flux-system, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
`,
		"clusters/home/flux-system/kustomization.yaml": "resources: [gotk-sync.yaml, ../settings.yaml, ../apps.yaml]\n",
		"clusters/home/settings.yaml":                  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-settings, namespace: flux-system}\n",
		"clusters/home/apps.yaml":                      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: apps, namespace: flux-system}\n",
	})
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/home")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Failed != 0 || res.Root.Object.Name != "flux-system" || res.Root.Object.Source.File != "clusters/home/flux-system/gotk-sync.yaml" {
		t.Fatalf("root %s (%s), findings %+v", res.Root, res.Root.Object.Source, res.Findings)
	}
	if _, ok := res.Objects.Lookup("", "ConfigMap", "flux-system", "apps"); !ok {
		t.Errorf("the sync Kustomization was not built")
	}
}

// TestBuildTreeNothingCheckedUncheckedRouting: a tree whose routing is all
// of kinds routeguard does not check (Traefik IngressRoutes) is RG0100 as a
// warning (not checked), not an info that it routes nothing; a chart's
// settings named gateway (mimir's component) are not routing values.
func TestBuildTreeNothingCheckedUncheckedRouting(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"clusters/home/apps.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec: {interval: 1h, path: ./apps, sourceRef: {kind: GitRepository, name: flux-system}}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: mimir, namespace: monitoring}
spec:
  chartRef: {kind: OCIRepository, name: mimir}
  values:
    gateway: {replicas: 2, enabledNonEnterprise: true}
`,
		"apps/route.yaml": "apiVersion: traefik.io/v1alpha1\nkind: IngressRoute\nmetadata: {name: web, namespace: web}\nspec: {routes: [{match: Host(`web.example.com`), kind: Rule, services: [{name: web, port: 80}]}]}\n",
	})
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/home")})
	if err != nil {
		t.Fatal(err)
	}
	fs := res.NothingChecked(res.Objects, res.Nodes)
	if len(fs) != 1 || fs[0].Severity != analysis.SeverityWarning || !strings.Contains(fs[0].Message, "traefik.io IngressRoute, which routeguard does not check") || strings.Contains(fs[0].Message, "mimir") {
		t.Fatalf("findings %+v", fs)
	}
}

// TestBuildTreeSharedComponentInfo: the same object applied identically by
// two Kustomizations (a shared component, as home labs give every app its
// app-template OCIRepository), but for the labels each one's
// commonMetadata adds, is RG0105 at info; one applied differently stays a
// warning.
func TestBuildTreeSharedComponentInfo(t *testing.T) {
	ks := func(name string) string {
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: " + name + ", namespace: flux-system}\n" +
			"spec: {interval: 1h, path: ./apps/" + name + ", targetNamespace: media, sourceRef: {kind: GitRepository, name: flux-system},\n" +
			"  commonMetadata: {labels: {app.kubernetes.io/name: " + name + "}}}\n---\n"
	}
	root := writeRepo(t, map[string]string{
		"clusters/home/apps.yaml":            ks("a") + ks("b") + ks("c"),
		"components/repo/ocirepository.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata: {name: app-template}\nspec: {interval: 1h, url: oci://ghcr.io/bjw-s-labs/helm/app-template, ref: {tag: 4.4.0}}\n",
		"components/repo/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [ocirepository.yaml]\n",
		"apps/a/kustomization.yaml":          "components: [../../components/repo]\n",
		"apps/b/kustomization.yaml":          "components: [../../components/repo]\n",
		"apps/c/kustomization.yaml":          "resources: [oci.yaml]\n",
		"apps/c/oci.yaml":                    "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata: {name: app-template}\nspec: {interval: 1h, url: oci://ghcr.io/bjw-s-labs/helm/app-template, ref: {tag: 3.7.3}}\n",
	})
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/home")})
	if err != nil {
		t.Fatal(err)
	}
	var sev []string
	for _, f := range res.Findings {
		if f.Code == analysis.CodeAppliedTwice {
			sev = append(sev, f.Severity.String()+" "+strings.Fields(strings.SplitAfter(f.Message, " and by ")[1])[1])
		}
	}
	slices.Sort(sev)
	if want := []string{"info flux-system/b", "severity(0) flux-system/c"}; !slices.Equal(sev, want) {
		t.Errorf("RG0105 %v, want %v: %+v", sev, want, res.Findings)
	}
}

// TestBuildTreeSyncSourceMadeInCluster: a tree whose Kustomizations build
// from GitRepository flux-system/flux-system, which no file declares
// (flux-operator's FluxInstance makes it), with paths that are here, builds
// them from this checkout with a note, not RG0106 for every app.
func TestBuildTreeSyncSourceMadeInCluster(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"kubernetes/flux/config/cluster.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: home-kubernetes, namespace: flux-system}
spec: {interval: 1h, url: "https://github.com/example/home-ops", ref: {branch: main}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: cluster, namespace: flux-system}
spec: {interval: 1h, path: ./kubernetes/flux, sourceRef: {kind: GitRepository, name: home-kubernetes}}
`,
		"kubernetes/flux/cluster/ks.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: cluster-apps, namespace: flux-system}
spec: {interval: 1h, path: ./kubernetes/apps, sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}}
`,
		"kubernetes/apps/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: web}\n",
	})
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "kubernetes/flux")})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Objects.Lookup("", "ConfigMap", "web", "web"); !ok {
		t.Fatalf("cluster-apps not built: %+v", res.Findings)
	}
	if !slices.ContainsFunc(res.Notices, func(n notice.Notice) bool {
		return strings.Contains(n.Text, "GitRepository flux-system/flux-system, which no file of the tree declares")
	}) {
		t.Errorf("no note: %+v", res.Notices)
	}
}

// TestBuildTreeUnreadRoutingWarns: a tree whose apps come from an OCI
// artifact (pushed from this repository's kubernetes/ directory in CI)
// holds no routing routeguard can reach, but the checkout does: RG0100 is
// a warning naming those files and --source, not an info that it routes
// nothing. Without such files it stays an info.
func TestBuildTreeUnreadRoutingWarns(t *testing.T) {
	files := map[string]string{
		"clusters/home/apps.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata: {name: apps, namespace: flux-system}\n" +
			"spec: {interval: 1h, url: oci://ghcr.io/example/apps, ref: {tag: latest}}\n---\n" +
			"apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\n" +
			"spec: {interval: 1h, path: ./apps, prune: true, sourceRef: {kind: OCIRepository, name: apps}}\n",
		"kubernetes/apps/web/deploy.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: web}\n",
	}
	for _, tc := range []struct {
		route string
		want  analysis.Severity
	}{{"", analysis.SeverityInfo}, {"kubernetes/apps/web/httproute.yaml", analysis.SeverityWarning}} {
		if tc.route != "" {
			files[tc.route] = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: web, namespace: web}\nspec: {parentRefs: [{name: gw}]}\n"
		}
		root := writeRepo(t, files)
		res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/home")})
		if err != nil {
			t.Fatal(err)
		}
		fs := res.NothingChecked(res.Objects, res.Nodes)
		if len(fs) != 1 || fs[0].Severity != tc.want {
			t.Fatalf("route %q: RG0100 %+v, want one at %v", tc.route, fs, tc.want)
		}
		if tc.route != "" && (!strings.Contains(fs[0].Message, "1 files of this repository hold routing objects that nothing built reads ("+tc.route+")") || !strings.Contains(fs[0].Message, "--source")) {
			t.Errorf("message: %s", fs[0].Message)
		}
	}
}

// TestBuildTreeOtherClusterNoConflict: the hub and spoke layout, where
// Kustomizations with spec.kubeConfig apply the same ClusterRoleBinding,
// differently, into the staging and production clusters, is no RG0105 but
// a warning that the second copy is not analyzed; two Kustomizations
// applying it differently into the same cluster stay RG0105.
func TestBuildTreeOtherClusterNoConflict(t *testing.T) {
	ks := func(name, secret string) string {
		s := "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: " + name + ", namespace: flux-system}\n" +
			"spec:\n  interval: 1h\n  path: ./tenants/" + name + "\n  sourceRef: {kind: GitRepository, name: flux-system}\n"
		if secret != "" {
			s += "  kubeConfig: {secretRef: {name: " + secret + "}}\n"
		}
		return s + "---\n"
	}
	crb := func(sa string) string {
		return "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: flux-cluster-admin}\n" +
			"roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\n" +
			"subjects: [{kind: ServiceAccount, name: " + sa + ", namespace: flux-system}]\n"
	}
	for _, tc := range []struct {
		name             string
		staging, prod    string
		wantRG0105, warn bool
	}{
		{"two clusters", "staging-kubeconfig", "production-kubeconfig", false, true},
		{"one cluster", "", "", true, false},
		{"same kubeConfig", "spoke", "spoke", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := writeRepo(t, map[string]string{
				"clusters/hub/tenants.yaml":   ks("staging", tc.staging) + ks("production", tc.prod),
				"tenants/staging/crb.yaml":    crb("staging"),
				"tenants/production/crb.yaml": crb("production"),
			})
			res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/hub")})
			if err != nil {
				t.Fatal(err)
			}
			var got bool
			for _, f := range res.Findings {
				got = got || f.Code == analysis.CodeAppliedTwice
			}
			if got != tc.wantRG0105 {
				t.Errorf("RG0105 %v, want %v: %+v", got, tc.wantRG0105, res.Findings)
			}
			var warned bool
			for _, n := range res.Notices {
				if strings.Contains(n.Text, "another cluster under") || strings.Contains(n.Text, "into another cluster") {
					warned = true
					if n.Level != notice.Warning || !strings.Contains(n.Text, "ClusterRoleBinding") || !strings.Contains(n.Text, "Secret flux-system/") {
						t.Errorf("notice %+v", n)
					}
				}
			}
			if warned != tc.warn {
				t.Errorf("other-cluster notice %v, want %v: %+v", warned, tc.warn, res.Notices)
			}
		})
	}
}
