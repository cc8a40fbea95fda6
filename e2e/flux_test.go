package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/e2e/testbed"
)

// Scenario 5: Flux. source-controller clones the example repository from
// the loopback Git server; kustomize-controller reconciles the Kustomization
// tree of examples/flux/clusters/prod (its root Kustomization flux-system
// applied as `flux bootstrap` would), on an API server of their own (Argo
// CD syncs the same repository in the other one). Then:
//   - what each Kustomization applied (its inventory, and each object's
//     fields) equals what `routeguard flux build --name` says it applies,
//     server-set fields aside;
//   - routeguard's healthCheckExprs, evaluated by kustomize-controller on the
//     live routes, give the verdicts `routeguard health check` gives on the
//     same live objects: Current while the stand-in accepts the route,
//     Failed when it refuses it.
// helm-controller is not served by the module proxy: the HelmRelease object
// is applied (its CRD is routeguard's bundled one, controller-gen on
// helm-controller's API module), the chart is not rendered.

const fluxCluster = "examples/flux/clusters/prod"

// fluxKustomizations are the tree's Kustomizations (flux-system/<name>).
var fluxKustomizations = []string{"flux-system", "frontend", "status-page", "reviews"}

func TestFluxReconcilesWhatRouteguardBuilds(t *testing.T) {
	b := testbed.Get(t)
	f := b.Flux(t)
	kube := f.Kube
	repo := b.Repo(t)
	gw := f.Gateways
	gw.Enable()
	ctx := context.Background()

	// The namespaces the cluster has before Flux runs (no object of the
	// tree creates them).
	for _, ns := range []string{"shop-prod", "bookinfo", "gateway-infra"} {
		if err := kube.Apply(ctx, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}); err != nil {
			t.Fatal(err)
		}
	}
	// The revision under test: routeguard's healthCheckExprs on the
	// status-page Kustomization (wait: true), as docs/health.md says to.
	exprs, _, code := routeguardRun(t, b, repo.Work, "health", "bundle", "--for", "flux")
	if code != 0 {
		t.Fatalf("routeguard health bundle --for flux: exit %d", code)
	}
	var bundle struct {
		HealthCheckExprs []any `json:"healthCheckExprs"`
	}
	if err := yaml.Unmarshal([]byte(exprs), &bundle); err != nil || len(bundle.HealthCheckExprs) == 0 {
		t.Fatalf("health bundle: %v\n%s", err, exprs)
	}
	if err := editKustomization(repo, fluxCluster+"/apps.yaml", "status-page", func(spec map[string]any) {
		spec["wait"] = true
		spec["timeout"] = "40s"
		spec["healthCheckExprs"] = bundle.HealthCheckExprs
	}); err != nil {
		t.Fatal(err)
	}
	rev, err := repo.Commit("flux: routeguard's healthCheckExprs on status-page")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := repo.Restore(b.RepoRoot, fluxCluster+"/apps.yaml"); err != nil {
			t.Error(err)
		} else if _, err := repo.Commit("revert: flux example as shipped"); err != nil {
			t.Error(err)
		}
	}()
	gitRepo, err := repo.ReadFile(fluxCluster + "/flux-system/gitrepository.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := kube.ApplyYAML(ctx, []byte(gitRepo)); err != nil {
		t.Fatal(err)
	}
	root := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
		"metadata": map[string]any{"name": "flux-system", "namespace": "flux-system"},
		"spec": map[string]any{
			"interval": "10m", "path": "./" + fluxCluster, "prune": true,
			"sourceRef": map[string]any{"kind": "GitRepository", "name": "shop-gitops"},
		},
	}}
	if err := kube.Apply(ctx, root); err != nil {
		t.Fatal(err)
	}
	requestReconcile(t, kube, testbed.GitRepositoryGVK, "shop-gitops")
	for _, name := range fluxKustomizations {
		waitKustomization(t, kube, name, rev, "True")
	}

	// What each Kustomization applied against routeguard's build of it.
	// `flux build --name X` prints what X applies directly or through its
	// children; what X itself applies (its inventory) is that less what its
	// children (Kustomizations, HelmReleases it applies) print.
	build := func(name, namespace string) []*unstructured.Unstructured {
		out, stderr, code := routeguardRun(t, b, repo.Work, "flux", "build", fluxCluster, "--analyze=false", "--name", name, "--namespace", namespace)
		if code != 0 {
			t.Fatalf("routeguard flux build --name %s: exit %d\n%s", name, code, stderr)
		}
		objs, err := testbed.DecodeYAML([]byte(out))
		if err != nil {
			t.Fatal(err)
		}
		return objs
	}
	for _, name := range fluxKustomizations {
		t.Run("applied/"+name, func(t *testing.T) {
			ks, _ := kube.Get(ctx, testbed.KustomizationGVK, "flux-system", name)
			inv := inventory(ks)
			all := build(name, "flux-system")
			byChildren := map[string]bool{}
			for _, o := range all {
				if k := o.GetKind(); (k == "Kustomization" || k == "HelmRelease") && !(k == "Kustomization" && o.GetName() == name) {
					for _, c := range build(o.GetName(), o.GetNamespace()) {
						byChildren[inventoryID(c)] = true
					}
				}
			}
			var builtIDs []string
			for _, o := range all {
				id := inventoryID(o)
				if byChildren[id] {
					continue
				}
				builtIDs = append(builtIDs, id)
				live, err := kube.Get(ctx, o.GroupVersionKind(), o.GetNamespace(), o.GetName())
				if err != nil || live == nil {
					t.Errorf("%s: built by routeguard, not in the API server (err %v)", id, err)
					continue
				}
				for _, d := range subsetDiff("", o.Object, live.Object) {
					t.Errorf("%s: %s", id, d)
				}
			}
			sort.Strings(builtIDs)
			if !reflect.DeepEqual(builtIDs, inv) {
				t.Errorf("kustomize-controller's inventory of %s:\n  %s\nrouteguard flux build --name %s, less its children's:\n  %s",
					name, strings.Join(inv, "\n  "), name, strings.Join(builtIDs, "\n  "))
			}
		})
	}

	// The health verdicts: routeguard health check on the live route, and
	// kustomize-controller running the same expressions.
	route := func() string {
		live, err := kube.Get(ctx, gvkHTTPRoute, "shop-prod", "status-page")
		if err != nil || live == nil {
			t.Fatalf("HTTPRoute shop-prod/status-page: %v", err)
		}
		y, _ := yaml.Marshal(live.Object)
		return string(y)
	}
	if v := celVerdict(t, b, route()); v != "Current" {
		t.Errorf("routeguard health check (CEL) of the accepted live route = %s, want Current", v)
	}
	gw.Reject("shop-prod", "status-page", "hostname not allowed by this gateway (stand-in)")
	defer gw.Accept("shop-prod", "status-page")
	eventually(t, "the stand-in refused the route", func() (bool, string) {
		v := celVerdict(t, b, route())
		return v == "Failed", "routeguard health check: " + v
	})
	requestReconcile(t, kube, testbed.KustomizationGVK, "status-page")
	waitKustomization(t, kube, "status-page", rev, "False")
	ks, _ := kube.Get(ctx, testbed.KustomizationGVK, "flux-system", "status-page")
	ready := testbed.Condition(ks, "Ready")
	if msg, _ := ready["message"].(string); !strings.Contains(msg, "HTTPRoute/shop-prod/status-page") {
		t.Errorf("status-page Ready=False does not name the refused route: %v", ready)
	}
	if reason, _ := ready["reason"].(string); reason != "HealthCheckFailed" {
		t.Errorf("status-page Ready reason = %q, want HealthCheckFailed (the route's failed expression): %v", reason, ready)
	}
	gw.Accept("shop-prod", "status-page")
	// Only once the stand-in has written the accepted status: a reconcile
	// that reads the old one fails the health check early and waits out the
	// Kustomization's interval.
	eventually(t, "the stand-in accepted the route again", func() (bool, string) {
		v := celVerdict(t, b, route())
		return v == "Current", "routeguard health check: " + v
	})
	requestReconcile(t, kube, testbed.KustomizationGVK, "status-page")
	waitKustomization(t, kube, "status-page", rev, "True")
}

// celVerdict runs `routeguard health check` on one object and returns its
// Flux (CEL) verdict.
func celVerdict(t *testing.T, b *testbed.Bed, obj string) string {
	t.Helper()
	cmd := []string{"health", "check", "-"}
	out, stderr := runWithStdin(t, b, obj, cmd...)
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "flux (CEL):"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("routeguard health check printed no CEL verdict:\n%s%s", out, stderr)
	return ""
}

func requestReconcile(t *testing.T, kube *testbed.Kube, gvk schema.GroupVersionKind, name string) {
	t.Helper()
	o := &unstructured.Unstructured{}
	o.SetGroupVersionKind(gvk)
	o.SetNamespace("flux-system")
	o.SetName(name)
	patch := fmt.Sprintf(`{"metadata":{"annotations":{"reconcile.fluxcd.io/requestedAt":%q}}}`, time.Now().Format(time.RFC3339Nano))
	if err := kube.MergePatch(context.Background(), o, []byte(patch)); err != nil {
		t.Fatalf("request reconcile of %s %s: %v", gvk.Kind, name, err)
	}
}

// waitKustomization waits until flux-system/name has applied revision rev
// (main@sha1:<rev>) and its Ready condition has status ready.
func waitKustomization(t *testing.T, kube *testbed.Kube, name, rev, ready string) {
	t.Helper()
	eventually(t, fmt.Sprintf("Kustomization %s Ready=%s at %s", name, ready, short(rev)), func() (bool, string) {
		ks, err := kube.Get(context.Background(), testbed.KustomizationGVK, "flux-system", name)
		if err != nil || ks == nil {
			return false, fmt.Sprintf("absent (%v)", err)
		}
		applied := str(ks, "status", "lastAttemptedRevision")
		c := testbed.Condition(ks, "Ready")
		return strings.HasSuffix(applied, rev) && testbed.ConditionStatus(ks, "Ready") == ready &&
			(ready == "True" || c["reason"] != "Progressing"), fmt.Sprintf("attempted %s, Ready %v", applied, c)
	})
}

// inventory returns the sorted entries of a Kustomization's inventory
// (namespace_name_group_kind).
func inventory(ks *unstructured.Unstructured) []string {
	entries, _, _ := unstructured.NestedSlice(ks.Object, "status", "inventory", "entries")
	var out []string
	for _, e := range entries {
		m, _ := e.(map[string]any)
		id, _ := m["id"].(string)
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

func inventoryID(o *unstructured.Unstructured) string {
	gvk := o.GroupVersionKind()
	return o.GetNamespace() + "_" + o.GetName() + "_" + gvk.Group + "_" + gvk.Kind
}

// subsetDiff lists the fields of want that got lacks or holds otherwise.
// What got has beyond want is what the API server and kustomize-controller
// set (defaults, metadata, status, the kustomize.toolkit.fluxcd.io labels).
func subsetDiff(path string, want, got any) []string {
	want, got = normalize(want), normalize(got)
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: built %v, live %v", path, want, got)}
		}
		var out []string
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if path == "" && k == "status" {
				continue
			}
			out = append(out, subsetDiff(path+"."+k, w[k], g[k])...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: built %v, live %v", path, want, got)}
		}
		var out []string
		for i := range w {
			out = append(out, subsetDiff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		return out
	default:
		if !reflect.DeepEqual(want, got) {
			return []string{fmt.Sprintf("%s: built %v, live %v", path, want, got)}
		}
		return nil
	}
}

// normalize round-trips through JSON, so that numbers compare alike.
func normalize(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// editKustomization rewrites the Kustomization name in a file of the working
// copy (its other documents kept).
func editKustomization(repo *testbed.Repo, rel, name string, edit func(spec map[string]any)) error {
	data, err := repo.ReadFile(rel)
	if err != nil {
		return err
	}
	objs, err := testbed.DecodeYAML([]byte(data))
	if err != nil {
		return err
	}
	var out strings.Builder
	found := false
	for _, o := range objs {
		if o.GetKind() == "Kustomization" && o.GetName() == name {
			spec, _ := o.Object["spec"].(map[string]any)
			edit(spec)
			found = true
		}
		y, err := yaml.Marshal(o.Object)
		if err != nil {
			return err
		}
		out.WriteString("---\n")
		out.Write(y)
	}
	if !found {
		return fmt.Errorf("%s: no Kustomization %s", rel, name)
	}
	return repo.WriteFile(rel, out.String())
}
