package argocd

import (
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/argocd/appset"
)

func appSet(name, spec string) string {
	return `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: ` + name + `
  namespace: argocd
spec:
` + spec
}

// A git directory generator over apps/* of this checkout, with an excluded
// directory; Go templates name each Application after its directory.
func TestAppSetGitDirectories(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"argocd/teams.yaml": appSet("teams", `
  goTemplate: true
  goTemplateOptions: ["missingkey=error"]
  generators:
    - git:
        repoURL: `+repoURL+`
        revision: main
        directories:
          - path: apps/*
          - path: apps/legacy
            exclude: true
  template:
    metadata:
      name: 'team-{{ .path.basename }}'
    spec:
      project: default
      source:
        repoURL: `+repoURL+`
        path: '{{ .path.path }}'
      destination:
        server: https://kubernetes.default.svc
        namespace: '{{ .path.basename | upper | lower }}-ns'
`),
		"apps/cart/cm.yaml":    configMap("cart"),
		"apps/search/cm.yaml":  configMap("search"),
		"apps/legacy/cm.yaml":  configMap("legacy"),
		"apps/.hidden/cm.yaml": configMap("hidden"),
		"apps/readme.md":       "not a directory\n",
	})
	res := build(t, root, Options{}, "argocd")
	equal(t, "Applications", appKeys(res), []string{"argocd/team-cart", "argocd/team-search"})
	a := app(t, res, "argocd/team-search")
	if a.App.Spec.Destination.Namespace != "search-ns" || a.App.Spec.Source.Path != "apps/search" {
		t.Errorf("team-search: destination %q path %q", a.App.Spec.Destination.Namespace, a.App.Spec.Source.Path)
	}
	equal(t, "team-search objects", objectKeys(a.Set), []string{"ConfigMap search"})
}

// A git file generator reads config files of this checkout: their keys
// become parameters (flattened for fasttemplate), with path.* of the file.
func TestAppSetGitFiles(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"argocd/clusters.yaml": appSet("clusters", `
  generators:
    - git:
        repoURL: `+repoURL+`
        revision: HEAD
        files:
          - path: "clusters/**/config.json"
  template:
    metadata:
      name: '{{cluster.name}}-guestbook'
    spec:
      project: default
      source:
        repoURL: `+repoURL+`
        path: 'apps/guestbook/{{path.basename}}'
      destination:
        server: '{{cluster.address}}'
        namespace: guestbook
`),
		"clusters/eu/prod/config.json": `{"cluster": {"name": "eu-prod", "address": "https://eu.example.com"}}`,
		"clusters/us/config.json":      `{"cluster": {"name": "us", "address": "https://us.example.com"}}`,
		"clusters/us/other.json":       `{"cluster": {"name": "ignored"}}`,
		"apps/guestbook/prod/cm.yaml":  configMap("prod"),
		"apps/guestbook/us/cm.yaml":    configMap("us"),
	})
	res := build(t, root, Options{}, "argocd")
	equal(t, "Applications", appKeys(res), []string{"argocd/eu-prod-guestbook", "argocd/us-guestbook"})
	eu := app(t, res, "argocd/eu-prod-guestbook")
	if eu.Cluster != "https://eu.example.com" {
		t.Errorf("eu cluster = %q", eu.Cluster)
	}
	equal(t, "eu objects", objectKeys(rendered(t, res, "argocd/eu-prod-guestbook")), []string{"ConfigMap prod"})
	var servers []string
	for _, c := range res.Clusters() {
		servers = append(servers, c.Server)
	}
	equal(t, "clusters", servers, []string{"https://eu.example.com", "https://us.example.com"})
}

// Matrix of a list and git directories, and a merge of two lists by a key.
func TestAppSetMatrixMerge(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"argocd/matrix.yaml": appSet("matrix", `
  goTemplate: true
  generators:
    - matrix:
        generators:
          - list:
              elements:
                - env: dev
                - env: prod
          - git:
              repoURL: `+repoURL+`
              revision: main
              directories:
                - path: services/*
  template:
    metadata:
      name: '{{ .path.basename }}-{{ .env }}'
    spec:
      project: default
      source:
        repoURL: `+repoURL+`
        path: '{{ .path.path }}'
      destination:
        server: https://kubernetes.default.svc
        namespace: '{{ .env }}'
`),
		"argocd/merge.yaml": appSet("merge", `
  generators:
    - merge:
        mergeKeys: [name]
        generators:
          - list:
              elements:
                - name: alpha
                  ns: default-a
                - name: beta
                  ns: default-b
          - list:
              elements:
                - name: beta
                  ns: special
                - name: gamma
                  ns: dropped
  template:
    metadata:
      name: 'm-{{name}}'
    spec:
      project: default
      source:
        repoURL: `+repoURL+`
        path: services/a
      destination:
        server: https://kubernetes.default.svc
        namespace: '{{ns}}'
`),
		"services/a/cm.yaml": configMap("a"),
		"services/b/cm.yaml": configMap("b"),
	})
	res := build(t, root, Options{}, "argocd")
	equal(t, "Applications", appKeys(res), []string{
		"argocd/a-dev", "argocd/a-prod", "argocd/b-dev", "argocd/b-prod", "argocd/m-alpha", "argocd/m-beta"})
	if ns := app(t, res, "argocd/m-beta").App.Spec.Destination.Namespace; ns != "special" {
		t.Errorf("merge: m-beta namespace = %q, want the second generator's", ns)
	}
	if ns := app(t, res, "argocd/m-alpha").App.Spec.Destination.Namespace; ns != "default-a" {
		t.Errorf("merge: m-alpha namespace = %q", ns)
	}
	if ns := app(t, res, "argocd/b-prod").App.Spec.Destination.Namespace; ns != "prod" {
		t.Errorf("matrix: b-prod namespace = %q", ns)
	}
}

const clusterAppSet = `
  generators:
    - clusters:
        selector:
          matchLabels:
            env: prod
            argocd.argoproj.io/secret-type: cluster
  template:
    metadata:
      name: '{{name}}-web'
      labels:
        region: '{{metadata.annotations.region}}'
    spec:
      project: default
      source:
        repoURL: ` + repoURL + `
        path: apps/web
      destination:
        server: '{{server}}'
        namespace: web
`

// Cluster generators list the clusters given (--cluster), with their
// labels (and the label every cluster Secret has) and annotations; without them the ApplicationSet is skipped with a notice and its
// namespaces cannot be checked.
func TestAppSetClusters(t *testing.T) {
	files := map[string]string{
		"argocd/web.yaml":  appSet("web", clusterAppSet),
		"apps/web/cm.yaml": configMap("web"),
	}
	t.Run("given", func(t *testing.T) {
		res := build(t, writeRepo(t, files), Options{ClustersKnown: true, Clusters: []appset.Cluster{
			{Name: "eu", Server: "https://eu.example.com", Labels: map[string]string{"env": "prod"}, Annotations: map[string]string{"region": "eu-west"}},
			{Name: "lab", Server: "https://lab.example.com", Labels: map[string]string{"env": "lab"}},
		}}, "argocd")
		equal(t, "Applications", appKeys(res), []string{"argocd/eu-web"})
		if c := app(t, res, "argocd/eu-web").Cluster; c != "https://eu.example.com" {
			t.Errorf("eu-web cluster = %q", c)
		}
		if r := app(t, res, "argocd/eu-web").App.Object.Labels()["region"]; r != "eu-west" {
			t.Errorf("eu-web label region = %q, want the cluster's annotation", r)
		}
	})
	t.Run("not given", func(t *testing.T) {
		res := build(t, writeRepo(t, files), Options{}, "argocd")
		if len(res.Apps) != 0 {
			t.Fatalf("Applications = %v, want none", appKeys(res))
		}
		if len(res.AppSets) != 1 || res.AppSets[0].Skipped == "" {
			t.Fatalf("want the ApplicationSet skipped, got %+v", res.AppSets)
		}
		if !strings.Contains(res.AppSets[0].Skipped, "cluster") {
			t.Errorf("skip reason %q does not name the cluster generator", res.AppSets[0].Skipped)
		}
		var scopes []string
		for _, u := range res.AppSets[0].Unrendered {
			scopes = append(scopes, u.Namespace)
		}
		equal(t, "unrendered namespaces", scopes, []string{"web"})
	})
}
