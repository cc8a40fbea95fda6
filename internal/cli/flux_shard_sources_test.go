package cli

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/synth/fluxrepo"
)

// ociSyncRepo is a Flux tree synced from an OCI artifact pushed from the
// repository's kubernetes/ directory (flux-operator's FluxInstance layout):
// its Kustomizations build from OCIRepository flux-system/flux-system,
// which --source maps to kubernetes. Two commits: the second changes a
// route's weights and adds a Kustomization. It returns the directory and
// the two commits.
func ociSyncRepo(t *testing.T) (string, []string) {
	t.Helper()
	ks := func(name string) string {
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: " + name + ", namespace: flux-system}\n" +
			"spec: {interval: 1h, path: ./apps/" + name + ", prune: true, sourceRef: {kind: OCIRepository, name: flux-system}}\n---\n"
	}
	app := func(name string, weight string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: " + name + ", namespace: web}\n" +
			"spec:\n  parentRefs: [{name: public, namespace: web}]\n  rules:\n  - backendRefs:\n    - {name: " + name + ", port: 80, weight: " + weight + "}\n    - {name: " + name + "-canary, port: 80, weight: 10}\n---\n" +
			"apiVersion: v1\nkind: Service\nmetadata: {name: " + name + ", namespace: web}\nspec: {ports: [{port: 80}]}\n---\n" +
			"apiVersion: v1\nkind: Service\nmetadata: {name: " + name + "-canary, namespace: web}\nspec: {ports: [{port: 80}]}\n"
	}
	gw := "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: public, namespace: web}\nspec:\n  gatewayClassName: envoy\n  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: Same}}}]\n"
	files := fluxrepo.Files{
		"kubernetes/clusters/home/sync.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata: {name: flux-system, namespace: flux-system}\n" +
			"spec: {interval: 1h, url: oci://ghcr.io/example/home-ops, ref: {tag: latest}}\n---\n" + ks("gateway") + ks("shop") + ks("blog"),
		"kubernetes/apps/gateway/gateway.yaml": gw,
		"kubernetes/apps/shop/route.yaml":      app("shop", "90"),
		"kubernetes/apps/blog/route.yaml":      app("blog", "90"),
	}
	return fluxCommits(t, files, fluxrepo.Files{
		"kubernetes/apps/shop/route.yaml":    app("shop", "50"),
		"kubernetes/clusters/home/sync.yaml": files["kubernetes/clusters/home/sync.yaml"] + ks("docs"),
		"kubernetes/apps/docs/route.yaml":    app("docs", "90"),
	})
}

// A flux diff of a tree synced from an OCI artifact of the repository
// (--source OCIRepository/...=DIR inside it) shards: the merged review is
// the unsharded one, byte for byte, and the Kustomizations on the mapped
// source were built (not RG0106). A source outside the repository, one
// that leads out of it through a symbolic link, and a shard file whose
// options.sources leave the repository are refused, naming the path or
// the file.
func TestFluxShardSourceInsideRepository(t *testing.T) {
	dir, commits := ociSyncRepo(t)
	source := "--source=OCIRepository/flux-system/flux-system=kubernetes"
	args := []string{"flux", "diff", "--base", commits[0], "--head", commits[1], source, "kubernetes/clusters/home"}
	full, _, code := runIn(t, dir, append(append([]string{}, args...), "-o", "text")...)
	if code == ExitError || !strings.Contains(full, "shop") || strings.Contains(full, "RG0106") {
		t.Fatalf("unsharded review (exit %d) did not build the mapped source:\n%s", code, full)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 2, 3} {
		files, _ := fluxShardRun(t, dir, n, args, rng)
		for _, format := range []string{"json", "text"} {
			fullErr, mergedErr := mergeMatches(t, dir, format, args, files, format, false)
			if fullErr != mergeNote.ReplaceAllString(mergedErr, "") {
				t.Errorf("%d shards, -o %s: notices differ\n--- unsharded\n%s\n--- merged\n%s", n, format, fullErr, mergedErr)
			}
		}
	}

	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "kubernetes", "elsewhere")); err != nil {
		t.Fatal(err)
	}
	linked := commitStep(t, dir, len(commits))
	for _, tc := range []struct{ source, want string }{
		{"OCIRepository/flux-system/flux-system=" + outside, "only for a directory inside the repository"},
		// The export leaves out a link that leads out of the repository
		// (and sourcesInside refuses one in the work tree:
		// TestSourcesInside).
		{"OCIRepository/flux-system/flux-system=kubernetes/elsewhere", "kubernetes/elsewhere: no such directory in the revision"},
	} {
		f := filepath.Join(t.TempDir(), "s.json")
		a := []string{"flux", "diff", "--base", linked, "--head", linked, "--source", tc.source, "--shard", "1/2", "--shard-out", f, "kubernetes/clusters/home"}
		_, stderr, code := runIn(t, dir, a...)
		if code != ExitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("--source %s with --shard: exit %d, %q; want exit 2 and %q", tc.source, code, stderr, tc.want)
		}
		if _, err := os.Stat(f); err == nil {
			t.Errorf("--source %s: a shard file was written", tc.source)
		}
	}

	files, _ := fluxShardRun(t, dir, 2, args, rng)
	byIndex := shardsByIndex(t, files)
	for name, bad := range map[string]string{"up.json": "OCIRepository/flux-system/flux-system=../x", "abs.json": "OCIRepository/flux-system/flux-system=/etc"} {
		forged := editShard(t, byIndex[1], byIndex[2], name, func(m, _ map[string]any) {
			m["options"].(map[string]any)["sources"] = []any{bad}
		})
		_, stderr, code := runIn(t, dir, "report", "merge", forged, byIndex[2])
		if code != ExitError || !strings.Contains(stderr, name+": options.sources") {
			t.Errorf("a shard file with sources %q: exit %d, %q", bad, code, stderr)
		}
	}
}

// webhookRepo is a Flux tree that installs a substitution webhook
// (kustomize-mutating-webhook, writing the keys of ConfigMap
// flux-system/cluster-config into every Kustomization) with the ConfigMap
// applied by a Kustomization of its own that applies no Flux object (so
// the shards that do not hold it leave it out, and build without its
// keys), and six app Kustomizations whose routes use ${CLUSTER_DOMAIN}.
// The second commit changes the domain and one route's weights, the third
// another route's weights only.
func webhookRepo(t *testing.T) (string, []string) {
	t.Helper()
	ks := func(name, path string) string {
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: " + name + ", namespace: flux-system}\n" +
			"spec: {interval: 1h, path: " + path + ", prune: true, sourceRef: {kind: GitRepository, name: flux-system}}\n---\n"
	}
	route := func(i int, weight string) string {
		n := fmt.Sprintf("web-%d", i)
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: " + n + ", namespace: web}\n" +
			"spec:\n  parentRefs: [{name: public, namespace: web}]\n  hostnames: [\"" + n + ".${CLUSTER_DOMAIN}\"]\n  rules:\n  - backendRefs:\n    - {name: " + n + ", port: 80, weight: " + weight + "}\n    - {name: " + n + "-canary, port: 80, weight: 10}\n---\n" +
			"apiVersion: v1\nkind: Service\nmetadata: {name: " + n + ", namespace: web}\nspec: {ports: [{port: 80}]}\n---\n" +
			"apiVersion: v1\nkind: Service\nmetadata: {name: " + n + "-canary, namespace: web}\nspec: {ports: [{port: 80}]}\n"
	}
	files := fluxrepo.Files{
		"clusters/home/apps.yaml":      ks("settings", "./settings") + ks("webhook", "./webhook") + ks("gateway", "./gateway") + ks("apps", "./apps"),
		"settings/cluster-config.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-config, namespace: flux-system}\ndata: {CLUSTER_DOMAIN: home.example.com}\n",
		"webhook/release.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata: {name: webhook, namespace: flux-system}\nspec: {interval: 1h, url: https://charts.example.com}\n---\n" +
			"apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: kustomize-mutating-webhook, namespace: flux-system}\n" +
			"spec:\n  interval: 1h\n  chart: {spec: {chart: kustomize-mutating-webhook, sourceRef: {kind: HelmRepository, name: webhook}}}\n  values: {configMaps: [{name: cluster-config}]}\n",
		"gateway/gateway.yaml": "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: public, namespace: web}\nspec:\n  gatewayClassName: envoy\n  listeners: [{name: http, protocol: HTTP, port: 80, hostname: \"*.${CLUSTER_DOMAIN}\", allowedRoutes: {namespaces: {from: Same}}}]\n",
	}
	var apps string
	for i := range 6 {
		apps += ks(fmt.Sprintf("web-%d", i), fmt.Sprintf("./web/web-%d", i))
		files[fmt.Sprintf("web/web-%d/route.yaml", i)] = route(i, "90")
	}
	files["apps/apps.yaml"] = apps
	return fluxCommits(t, files, fluxrepo.Files{
		"settings/cluster-config.yaml": strings.Replace(files["settings/cluster-config.yaml"], "home.example.com", "lab.example.com", 1),
		"web/web-2/route.yaml":         route(2, "50"),
	}, fluxrepo.Files{"web/web-4/route.yaml": route(4, "70")})
}

// The shards of a tree with a substitution webhook are taken by the
// merge (before, a webhook made every node's inputs unknown, and the
// merge built the whole tree again), and the merged review is the
// unsharded one, byte for byte, in both directions of a change to the
// webhook's ConfigMap: a shard that left out the Kustomization applying
// it built without its keys, and the merge builds those nodes itself.
func TestFluxShardSubstitutionWebhook(t *testing.T) {
	dir, commits := webhookRepo(t)
	rng := rand.New(rand.NewPCG(9, 10))
	for _, p := range [][2]int{{0, 1}, {1, 0}, {1, 2}} {
		args := []string{"flux", "diff", "--base", commits[p[0]], "--head", commits[p[1]], "clusters/home"}
		full, _, _ := runIn(t, dir, args...)
		if strings.Contains(full, "${") || !strings.Contains(full, ".example.com") {
			t.Fatalf("the webhook's variables were not substituted:\n%s", full)
		}
		for _, n := range []int{2, 3, 4} {
			files, _ := fluxShardRun(t, dir, n, args, rng)
			for _, format := range []string{"json", "text"} {
				fullErr, mergedErr := mergeMatches(t, dir, fmt.Sprintf("%v, %d shards, -o %s", p, n, format), args, files, format, false)
				m := mergeNote.FindStringSubmatch(mergedErr)
				// At least the six app Kustomizations at both revisions,
				// built once the webhook is known (its Kustomization is
				// built by every shard: it applies a HelmRelease).
				if m == nil {
					t.Fatalf("%v, %d shards: no count of builds taken: %q", p, n, mergedErr)
				}
				if taken, _ := strconv.Atoi(m[1]); taken < 12 {
					t.Errorf("%v, %d shards: the merge took %d builds from the shards, want at least 12: %q", p, n, taken, mergedErr)
				}
				if fullErr != mergeNote.ReplaceAllString(mergedErr, "") {
					t.Errorf("%v, %d shards, -o %s: notices differ\n--- unsharded\n%s\n--- merged\n%s", p, n, format, fullErr, mergedErr)
				}
			}
		}
	}
}

// An affected-only flux diff of a tree synced from an OCI artifact of the
// repository (--source ...=kubernetes) traces the builds on the mapped
// directory (before, its source made every trace opaque and everything
// was built at both revisions): the shop's route and the new docs app are
// built at both, the gateway and the blog are not, and the review is the
// full review, in both directions.
func TestFluxAffectedSourceInsideRepository(t *testing.T) {
	dir, commits := ociSyncRepo(t)
	source := "--source=OCIRepository/flux-system/flux-system=kubernetes"
	for _, p := range [][2]int{{0, 1}, {1, 0}} {
		for _, format := range []string{"json", "text"} {
			args := []string{"flux", "diff", "--head", commits[p[1]], source, "-o", format, "kubernetes/clusters/home"}
			fullOut, fullErr, fullCode := runIn(t, dir, append(args, "--base", commits[p[0]])...)
			affOut, affErr, affCode := runIn(t, dir, append(args, "--changed-from", commits[p[0]])...)
			name := fmt.Sprintf("%v -o %s", p, format)
			if fullCode != affCode || fullCode == ExitError {
				t.Fatalf("%s: exit %d full, %d affected-only\n%s\n%s", name, fullCode, affCode, fullErr, affErr)
			}
			if format == "json" {
				fullOut, affOut = withoutCounts(t, fullOut), withoutCounts(t, affOut)
			} else {
				if !strings.Contains(affOut, "HelmReleases: 2 built, 2 unaffected") && !strings.Contains(affOut, "HelmReleases: 1 built, 2 unaffected") {
					t.Errorf("%s: want the gateway and the blog unaffected:\n%s", name, affOut)
				}
				fullOut, affOut = fluxCountsLine.ReplaceAllString(fullOut, ""), fluxCountsLine.ReplaceAllString(affOut, "")
			}
			if fullOut != affOut {
				t.Errorf("%s: the affected-only review differs from the full review\n--- full\n%s\n--- affected-only\n%s", name, fullOut, affOut)
			}
			if f, a := stderrWithoutAffectedNote(fullErr), stderrWithoutAffectedNote(affErr); f != a {
				t.Errorf("%s: notices differ\n--- full\n%s\n--- affected-only\n%s", name, f, a)
			}
		}
	}
}

// An affected-only flux diff of a tree with a substitution webhook is the
// full review: a change to the webhook's ConfigMap builds every
// Kustomization at both revisions, one to a route only that route's
// (before, a webhook made every node's inputs unknown: all built).
func TestFluxAffectedSubstitutionWebhook(t *testing.T) {
	dir, commits := webhookRepo(t)
	for _, tc := range []struct {
		p    [2]int
		want string
	}{{[2]int{0, 1}, " 8 built, 2 unaffected"}, {[2]int{1, 0}, " 8 built, 2 unaffected"}, {[2]int{1, 2}, " 1 built, 9 unaffected"}, {[2]int{2, 1}, " 1 built, 9 unaffected"}} {
		args := []string{"flux", "diff", "--head", commits[tc.p[1]], "clusters/home"}
		fullOut, fullErr, fullCode := runIn(t, dir, append(args, "--base", commits[tc.p[0]])...)
		affOut, affErr, affCode := runIn(t, dir, append(args, "--changed-from", commits[tc.p[0]])...)
		if fullCode != affCode || fullCode == ExitError {
			t.Fatalf("%v: exit %d full, %d affected-only\n%s\n%s", tc.p, fullCode, affCode, fullErr, affErr)
		}
		if !strings.Contains(affOut, "HelmReleases:"+tc.want) {
			t.Errorf("%v: want%s:\n%s", tc.p, tc.want, affOut)
		}
		if f, a := fluxCountsLine.ReplaceAllString(fullOut, ""), fluxCountsLine.ReplaceAllString(affOut, ""); f != a {
			t.Errorf("%v: the affected-only review differs from the full review\n--- full\n%s\n--- affected-only\n%s", tc.p, f, a)
		}
		if f, a := stderrWithoutAffectedNote(fullErr), stderrWithoutAffectedNote(affErr); f != a {
			t.Errorf("%v: notices differ\n--- full\n%s\n--- affected-only\n%s", tc.p, f, a)
		}
	}
}
