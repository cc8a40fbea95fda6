// Package fluxrepo writes a small Flux repository's git history for tests
// of affected-only reviews (flux diff --changed-from): a cluster directory
// of the flux bootstrap shape, a cluster-settings ConfigMap the apps
// substitute from, a shared Gateway, Kustomizations over a shared base and
// component, a plain directory, a HelmRelease with its chart in Git and
// its values in a configMapGenerator's ConfigMap, a dependsOn chain; then
// one commit per kind of edit.
package fluxrepo

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Commit is one commit of the history.
type Commit struct {
	Hash, What string
}

// ClusterDir is the cluster directory flux diff starts from.
const ClusterDir = "clusters/prod"

// Files is a repository: slash path -> content ("" removes the file).
type Files map[string]string

func ks(name, path string, extra string) string {
	return fmt.Sprintf(`---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: %s, namespace: flux-system}
spec:
  interval: 10m
  path: %s
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
%s`, name, path, extra)
}

func route(name, host, svc string, weight int) string {
	return fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: %s}
spec:
  parentRefs: [{name: main, namespace: infra}]
  hostnames: ["%s"]
  rules:
  - backendRefs:
    - name: %s
      port: 80
      weight: %d
`, name, host, svc, weight)
}

const service = `apiVersion: v1
kind: Service
metadata: {name: %s}
spec: {ports: [{port: 80}], selector: {app: %s}}
`

// Base is the first commit.
func Base() Files {
	f := Files{
		"README.md": "# fleet\n",
		ClusterDir + "/flux-system/gotk-sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 1m, url: "ssh://git@example.com/fleet.git", ref: {branch: main}}
` + ks("flux-system", "./"+ClusterDir, ""),
		ClusterDir + "/settings.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-settings, namespace: flux-system}\ndata: {DOMAIN: example.com, WEIGHT: \"100\"}\n",
		ClusterDir + "/infra.yaml":    ks("infra", "./infra", ""),
		ClusterDir + "/apps.yaml": ks("web", "./apps/web", "  targetNamespace: web\n  dependsOn: [{name: infra}]\n  postBuild: {substituteFrom: [{kind: ConfigMap, name: cluster-settings}]}\n") +
			ks("blog", "./apps/blog", "  targetNamespace: blog\n  dependsOn: [{name: infra}]\n  postBuild: {substitute: {DOMAIN: blog.example.org, WEIGHT: \"100\"}}\n") +
			ks("api", "./apps/api", "  targetNamespace: api\n  dependsOn: [{name: web}]\n") +
			ks("shop", "./apps/shop", "  dependsOn: [{name: infra}]\n"),
		"infra/gateway.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: main, namespace: infra}
spec:
  gatewayClassName: eg
  listeners:
  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}
`,
		"bases/site/kustomization.yaml": "resources: [route.yaml, service.yaml]\n",
		"bases/site/route.yaml":         route("site", "${DOMAIN}", "site", 0),
		"bases/site/service.yaml":       fmt.Sprintf(service, "site", "site"),
		"components/probe/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n" +
			"commonLabels: {probe: \"on\"}\n",
		"apps/web/kustomization.yaml":  "resources: [../../bases/site]\ncomponents: [../../components/probe]\n",
		"apps/blog/kustomization.yaml": "resources: [../../bases/site]\n",
		"apps/api/route.yaml":          route("api", "api.example.com", "api", 100),
		"apps/api/service.yaml":        fmt.Sprintf(service, "api", "api"),
		"apps/shop/kustomization.yaml": "namespace: shop\nresources: [release.yaml]\nconfigMapGenerator: [{name: shop-values, files: [values.yaml]}]\ngeneratorOptions: {disableNameSuffixHash: true}\n",
		"apps/shop/values.yaml":        "host: shop.example.com\nweight: 100\n",
		"apps/shop/release.yaml": `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: shop}
spec:
  interval: 10m
  chart:
    spec: {chart: ./charts/shop, sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}}
  valuesFrom: [{kind: ConfigMap, name: shop-values}]
`,
		"charts/shop/Chart.yaml":  "apiVersion: v2\nname: shop\nversion: 1.0.0\n",
		"charts/shop/values.yaml": "host: shop.local\nweight: 1\n",
		"charts/shop/templates/route.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop}
spec:
  parentRefs: [{name: main, namespace: infra}]
  hostnames: [{{ .Values.host | quote }}]
  rules:
  - backendRefs: [{name: shop, port: 80, weight: {{ .Values.weight }}}]
`,
		"charts/shop/templates/service.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: shop}\nspec: {ports: [{port: 80}], selector: {app: shop}}\n",
	}
	// The shared base's route takes its weight from the substitution.
	f["bases/site/route.yaml"] = strings.Replace(f["bases/site/route.yaml"], "weight: 0", "weight: ${WEIGHT}", 1)
	if !strings.Contains(f["bases/site/route.yaml"], "${WEIGHT}") {
		panic("fluxrepo: the base route takes no weight")
	}
	return f
}

// Edit is one commit's change.
type Edit struct {
	What  string
	Files Files
}

// Edits are the commits after Base, in order.
func Edits() []Edit {
	b := Base()
	return []Edit{
		{"base: the shared route's port", Files{"bases/site/service.yaml": strings.Replace(b["bases/site/service.yaml"], "port: 80", "port: 8080", 1),
			"bases/site/route.yaml": strings.Replace(b["bases/site/route.yaml"], "port: 80", "port: 8080", 1)}},
		{"values: the shop's weight", Files{"apps/shop/values.yaml": "host: shop.example.com\nweight: 50\n"}},
		{"substituteFrom: the cluster's domain", Files{ClusterDir + "/settings.yaml": strings.Replace(b[ClusterDir+"/settings.yaml"], "example.com", "example.net", 1)}},
		{"dependsOn: api on blog too", Files{ClusterDir + "/apps.yaml": strings.Replace(b[ClusterDir+"/apps.yaml"], "dependsOn: [{name: web}]", "dependsOn: [{name: web}, {name: blog}]", 1)}},
		{"unrelated: the README", Files{"README.md": "# fleet\n\nRun flux diff.\n"}},
		{"component: a probe hostname on every route", Files{"components/probe/kustomization.yaml": b["components/probe/kustomization.yaml"] +
			"patches:\n- target: {kind: HTTPRoute}\n  patch: |\n    - op: add\n      path: /spec/hostnames/-\n      value: probe.example.com\n"}},
		{"chart: the route template", Files{"charts/shop/templates/route.yaml": strings.Replace(b["charts/shop/templates/route.yaml"], "port: 80", "port: 81", 1)}},
		{"api: a file added to a plain directory", Files{"apps/api/route-v2.yaml": route("api-v2", "v2.api.example.com", "api", 100)}},
		{"gateway: the listener's port", Files{"infra/gateway.yaml": strings.Replace(b["infra/gateway.yaml"], "port: 80,", "port: 8080,", 1)}},
	}
}

// History writes the git repository into dir (empty): Base, then each
// edit applied over the previous commit. Commit times are fixed, so the
// hashes are a pure function of the content.
func History(dir string) ([]Commit, error) {
	r, err := git.PlainInit(dir, false)
	if err != nil {
		return nil, err
	}
	wt, err := r.Worktree()
	if err != nil {
		return nil, err
	}
	steps := append([]Edit{{What: "base", Files: Base()}}, Edits()...)
	var out []Commit
	for i, e := range steps {
		if err := e.Files.Write(dir); err != nil {
			return nil, err
		}
		if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
			return nil, err
		}
		sig := &object.Signature{Name: "gen", Email: "gen@example.com", When: time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC)}
		h, err := wt.Commit(e.What, &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
		if err != nil {
			return nil, err
		}
		out = append(out, Commit{Hash: h.String(), What: e.What})
	}
	return out, nil
}

// Write writes (or, for "", removes) the files under dir.
func (f Files) Write(dir string) error {
	for _, p := range slices.Sorted(maps.Keys(f)) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if f[p] == "" {
			if err := os.Remove(full); err != nil && !os.IsNotExist(err) {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, []byte(f[p]), 0o644); err != nil {
			return err
		}
	}
	return nil
}
