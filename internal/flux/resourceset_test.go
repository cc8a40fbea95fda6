package flux

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
)

// resourceSetTree is a cluster directory applying the ResourceSets of rsets
// (and whatever else they hold) with a synthetic sync Kustomization.
func resourceSetTree(t *testing.T, rsets string) *Result {
	t.Helper()
	root := writeRepo(t, map[string]string{"clusters/home/rsets.yaml": rsets})
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/home"), Strict: StrictOn})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func nodeOf(t *testing.T, r *Result, key string) *Node {
	t.Helper()
	for _, n := range r.Nodes {
		if n.String() == key {
			return n
		}
	}
	t.Fatalf("no node %s among %v", key, r.Nodes)
	return nil
}

// The template language is flux-operator's: << >> delimiters, inputs,
// slim-sprig's functions, slugify, toYaml, missingkey=error; each input set
// renders every template, the provider is added to each input, objects
// annotated reconcile: disabled are left out, duplicates dropped, owner
// labels and commonMetadata set.
func TestResourceSetTemplates(t *testing.T) {
	res := resourceSetTree(t, `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata: {name: tenants, namespace: flux-system}
spec:
  commonMetadata:
    labels: {team: platform}
  inputs:
    - {tenant: "Team One", replicas: 2, tags: [a, b]}
    - {tenant: team2, replicas: 3, tags: [c], off: "disabled"}
  resources:
    - apiVersion: v1
      kind: Namespace
      metadata:
        name: << inputs.tenant | slugify >>
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: shared
        namespace: flux-system
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: settings
        namespace: << inputs.tenant | slugify >>
        annotations:
          fluxcd.controlplane.io/reconcile: << get inputs "off" | default "enabled" >>
      data:
        replicas: << inputs.replicas | quote >>
        provider: << inputs.provider.kind >>/<< inputs.provider.name >>
        tags: |
          << toYaml inputs.tags | nindent 4 | trim >>
`)
	n := nodeOf(t, res, "ResourceSet flux-system/tenants")
	if n.Status != Built {
		t.Fatalf("status %s: %s", n.Status, n.Reason)
	}
	var got []string
	for _, o := range n.Objects {
		got = append(got, o.String())
	}
	want := []string{"Namespace team-one", "Namespace team2", "ConfigMap flux-system/shared", "ConfigMap team-one/settings"}
	if !slices.Equal(got, want) {
		t.Fatalf("objects %v, want %v", got, want)
	}
	cm := n.Objects[3]
	if v := field.String(cm.Body, "data", "replicas"); v != "2" {
		t.Errorf("replicas %q", v)
	}
	if v := field.String(cm.Body, "data", "provider"); v != "ResourceSet/tenants" {
		t.Errorf("provider %q", v)
	}
	if v := field.String(cm.Body, "data", "tags"); v != "- a\n- b\n" {
		t.Errorf("tags %q", v)
	}
	l := cm.Labels()
	if l["team"] != "platform" || l["resourceset.fluxcd.controlplane.io/name"] != "tenants" || l["resourceset.fluxcd.controlplane.io/namespace"] != "flux-system" {
		t.Errorf("labels %v", l)
	}
	if !strings.Contains(res.Stats.Summary(), "rendered 1 ResourceSets") {
		t.Errorf("summary %q", res.Stats.Summary())
	}
}

// A template that uses an input a set lacks fails as flux-operator fails it
// (missingkey=error): RG0108 naming the ResourceSet, not a silent empty
// value.
func TestResourceSetMissingInputFails(t *testing.T) {
	res := resourceSetTree(t, `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata: {name: apps, namespace: flux-system}
spec:
  inputs: [{app: web}]
  resources:
    - apiVersion: v1
      kind: ConfigMap
      metadata: {name: << inputs.name >>, namespace: apps}
`)
	fs := findingsWith(res, analysis.CodeResourceSetFailed, "ResourceSet flux-system/apps")
	if len(fs) != 1 || !strings.Contains(fs[0].Message, `map has no entry for key "name"`) || fs[0].Source.File != "clusters/home/rsets.yaml" {
		t.Fatalf("findings %+v", res.Findings)
	}
}

// Inputs from a Static provider are known offline (its defaultValues, an
// id); those of any other provider only the cluster has: a ResourceSet
// with inline inputs besides is built without them (partly, an unrendered
// scope, a warning); one whose inputs all come from there is not built
// (RG0106). Permute takes one input set per provider.
func TestResourceSetInputProviders(t *testing.T) {
	res := resourceSetTree(t, `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSetInputProvider
metadata: {name: defaults, namespace: flux-system, labels: {role: env}}
spec: {type: Static, defaultValues: {env: prod}}
---
apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSetInputProvider
metadata: {name: branches, namespace: flux-system}
spec: {type: GitHubBranch, url: "https://github.com/example/app"}
---
apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata: {name: mixed, namespace: flux-system}
spec:
  inputs: [{env: dev}]
  inputsFrom:
    - {kind: ResourceSetInputProvider, selector: {matchLabels: {role: env}}}
    - {kind: ResourceSetInputProvider, name: branches}
  resources:
    - apiVersion: v1
      kind: Namespace
      metadata: {name: app-<< inputs.env >>}
---
apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata: {name: only-branches, namespace: flux-system}
spec:
  inputsFrom: [{kind: ResourceSetInputProvider, name: branches}]
  resources:
    - apiVersion: v1
      kind: Namespace
      metadata: {name: branch-<< inputs.id >>}
---
apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata: {name: matrix, namespace: flux-system}
spec:
  inputStrategy: {name: Permute}
  inputs: [{region: eu}, {region: us}]
  inputsFrom: [{kind: ResourceSetInputProvider, name: defaults}]
  resources:
    - apiVersion: v1
      kind: ConfigMap
      metadata: {name: << inputs.matrix.region >>-<< inputs.defaults.env >>, namespace: apps}
      data: {id: << inputs.id | quote >>}
`)
	mixed := nodeOf(t, res, "ResourceSet flux-system/mixed")
	var names []string
	for _, o := range mixed.Objects {
		names = append(names, o.Name)
	}
	if mixed.Status != Built || !slices.Equal(names, []string{"app-dev", "app-prod"}) || len(mixed.Partial) != 1 || len(mixed.Unrendered) == 0 ||
		!strings.Contains(mixed.Partial[0], "ResourceSetInputProvider flux-system/branches (type GitHubBranch)") {
		t.Fatalf("mixed: status %s, objects %v, partial %v, unrendered %v", mixed.Status, names, mixed.Partial, mixed.Unrendered)
	}
	if !slices.ContainsFunc(res.Notices, func(n notice.Notice) bool {
		return n.Level == notice.Warning && strings.Contains(n.Text, "ResourceSet flux-system/mixed (clusters/home/rsets.yaml:") && strings.Contains(n.Text, "is built without part of it")
	}) {
		t.Errorf("no warning for the partial ResourceSet: %+v", res.Notices)
	}
	only := nodeOf(t, res, "ResourceSet flux-system/only-branches")
	if only.Status != Skipped || len(findingsWith(res, analysis.CodeNotBuilt, "ResourceSet flux-system/only-branches")) != 1 {
		t.Errorf("only-branches: %s %s", only.Status, only.Reason)
	}
	matrix := nodeOf(t, res, "ResourceSet flux-system/matrix")
	names = nil
	for _, o := range matrix.Objects {
		names = append(names, o.Name+"="+field.String(o.Body, "data", "id"))
	}
	if !slices.Equal(names, []string{"eu-prod=" + inputID("matrix=0/defaults=0"), "us-prod=" + inputID("matrix=1/defaults=0")}) {
		t.Errorf("permutations %v", names)
	}
	if !strings.Contains(res.Stats.Summary(), "; 1 built partly;") {
		t.Errorf("summary %q", res.Stats.Summary())
	}
}

// What a ResourceSet generates goes through the tree like any object: its
// HelmReleases and Kustomizations are built, its dependsOn orders it.
func TestResourceSetOutputBuilt(t *testing.T) {
	root := writeRepo(t, map[string]string{
		"clusters/home/rsets.yaml": `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata: {name: apps, namespace: flux-system}
spec:
  dependsOn:
    - {apiVersion: kustomize.toolkit.fluxcd.io/v1, kind: Kustomization, name: infra}
    - {apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, name: things.example.com}
  inputs: [{app: web}]
  resources:
    - apiVersion: kustomize.toolkit.fluxcd.io/v1
      kind: Kustomization
      metadata: {name: << inputs.app >>, namespace: flux-system}
      spec:
        interval: 1h
        path: ./apps/<< inputs.app >>
        targetNamespace: << inputs.app >>
        sourceRef: {kind: GitRepository, name: flux-system}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: infra, namespace: flux-system}
spec: {interval: 1h, path: ./infra, sourceRef: {kind: GitRepository, name: flux-system}}
`,
		"apps/web/svc.yaml":  "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n",
		"infra/ns.yaml":      "apiVersion: v1\nkind: Namespace\nmetadata: {name: web}\n",
		"infra/unused.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: web}\n",
		"clusters/README.md": "not a manifest\n",
	})
	res, err := BuildTree(context.Background(), Options{RepoRoot: root, Path: filepath.Join(root, "clusters/home"), Strict: StrictOn})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Objects.Lookup("", "Service", "web", "web"); !ok {
		t.Fatalf("the generated Kustomization was not built: %+v %+v", res.Nodes, res.Findings)
	}
	var order []string
	for _, n := range res.Nodes {
		order = append(order, n.String())
	}
	if i, j := slices.Index(order, "Kustomization flux-system/infra"), slices.Index(order, "ResourceSet flux-system/apps"); i < 0 || j < i {
		t.Errorf("dependsOn order %v", order)
	}
	if fs := res.Findings; slices.ContainsFunc(fs, func(f analysis.Finding) bool { return f.Code == analysis.CodeDependsOnMissing }) {
		t.Errorf("a ResourceSet's dependsOn on a CRD is not RG0104: %+v", fs)
	}
}

// The templates are bounded: a loop writing without end stops at the
// budget (RG0108), it does not exhaust memory.
func TestResourceSetTemplateBudget(t *testing.T) {
	if _, err := execTemplate(`<< range until 100001 >>x<< end >>`, nil); err == nil || !strings.Contains(err.Error(), "more than 100000 items") {
		t.Errorf("until: %v", err)
	}
	if _, err := execTemplate(`<< repeat 2000000 "x" >>`, nil); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("repeat: %v", err)
	}
	big := `<< range until 100000 >>` + strings.Repeat("y", 1000) + `<< end >>`
	if _, err := execTemplate(big, nil); err == nil || !strings.Contains(err.Error(), "MiB") {
		t.Errorf("budget: %v", err)
	}
	if _, err := execTemplate(`<< env "HOME" >>`, nil); err == nil {
		t.Error("env is not one of the hermetic functions")
	}
}

// A HelmRelease not built names its own directory as where its routes
// are likely to be (a route beside it names it as the likeliest maker).
func TestUnbuiltScopesOfHelmReleaseNameItsDirectory(t *testing.T) {
	objs, err := manifest.Decode("kubernetes/apps/kube-system/cilium/app/helmrelease.yaml", []byte("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: cilium, namespace: kube-system}\nspec: {chartRef: {kind: OCIRepository, name: cilium}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range UnbuiltScopes(objs[0], "was not built here") {
		if !slices.Equal(u.Paths, []string{"kubernetes/apps/kube-system/cilium/app"}) {
			t.Errorf("paths %v", u.Paths)
		}
	}
}
