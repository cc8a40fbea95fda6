package cli

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/routeguard/routeguard/internal/synth/fluxrepo"
)

// mergeNote is report merge's line on stderr counting what a flux merge
// took from the shards and built itself.
var mergeNote = regexp.MustCompile(`(?m)^routeguard: report merge took (\d+) Kustomization and HelmRelease build\(s\) from the shards and built (\d+) itself.*\n`)

// fluxShardRun builds the n shards of one flux diff and returns their
// files, shuffled, and each one's held identities.
func fluxShardRun(t *testing.T, dir string, n int, args []string, rng *rand.Rand) (files []string, held map[string][]string) {
	t.Helper()
	held = map[string][]string{}
	files = runShards(t, dir, n, args, rng, func(f, out string) {
		if !strings.Contains(out, "Kustomization(s), HelmRelease(s) and ResourceSet(s) built") {
			t.Fatalf("a flux diff shard: %s", out)
		}
		var h struct{ Apps []string }
		data, _ := os.ReadFile(f)
		if err := json.Unmarshal(data, &h); err != nil {
			t.Fatal(err)
		}
		held[f] = h.Apps
	})
	return files, held
}

// The merged review of N flux diff shards, named in shuffled order, is
// the review flux diff prints without --shard: the same bytes on stdout
// (JSON with the manifest diff, text, Markdown), the same SARIF, the
// same notices and exit code; for N = 1, 2, 4 and 7 over pairs of
// commits of the generated Flux history (a substituteFrom ConfigMap, a
// chart in Git with valuesFrom, a shared base, dependsOn). Every node is
// held by one shard, and the merge takes builds from the shards.
func TestFluxReportMergeEqualsUnsharded(t *testing.T) {
	dir, commits := fluxHistory(t)
	rng := rand.New(rand.NewPCG(33, 4))
	last := len(commits) - 1
	for _, p := range [][2]int{{0, last}, {last, 0}, {1, 2}, {2, 3}} {
		from, to := commits[p[0]], commits[p[1]]
		for _, review := range []string{"both", "routing"} {
			args := []string{"flux", "diff", "--base", from.Hash, "--head", to.Hash, "--diff", review, fluxrepo.ClusterDir}
			for _, n := range []int{1, 2, 4, 7} {
				files, held := fluxShardRun(t, dir, n, args, rng)
				owner := map[string]string{}
				for f, ids := range held {
					for _, id := range ids {
						if owner[id] != "" {
							t.Fatalf("%s held by %s and %s", id, owner[id], f)
						}
						owner[id] = f
					}
				}
				// The tree: the root, infra, web, blog, api, shop and
				// shop's HelmRelease.
				if len(owner) != 7 {
					t.Fatalf("%d shards hold %d nodes, want 7: %v", n, len(owner), owner)
				}
				for _, format := range []string{"json", "text", "markdown"} {
					name := fmt.Sprintf("%s → %s, --diff %s, %d shards, -o %s", from.What, to.What, review, n, format)
					fullErr, mergedErr := mergeMatches(t, dir, name, args, files, format, true)
					m := mergeNote.FindStringSubmatch(mergedErr)
					if m == nil {
						t.Fatalf("%s: no merge note:\n%s", name, mergedErr)
					}
					// Everything but the two roots comes from the shards.
					if taken, _ := strconv.Atoi(m[1]); taken < 12 {
						t.Errorf("%s: the merge took only %s builds from the shards, built %s", name, m[1], m[2])
					}
					if e := mergeNote.ReplaceAllString(mergedErr, ""); e != fullErr {
						t.Errorf("%s: notices differ\n--- unsharded\n%s\n--- merged\n%s", name, fullErr, e)
					}
				}
			}
		}
	}
}

// fluxCommits writes each step over the one before into a new git
// repository and commits it; it returns the directory and the hashes.
func fluxCommits(t *testing.T, steps ...fluxrepo.Files) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	if _, err := git.PlainInit(dir, false); err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, s := range steps {
		if err := s.Write(dir); err != nil {
			t.Fatal(err)
		}
		out = append(out, commitStep(t, dir, i))
	}
	return dir, out
}

// commitStep commits everything in the repository at dir as step i (a
// fixed author and time: the same hashes on every run).
func commitStep(t *testing.T, dir string, i int) string {
	t.Helper()
	r, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC)}
	h, err := wt.Commit(fmt.Sprint("step ", i), &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
	if err != nil {
		t.Fatal(err)
	}
	return h.String()
}

// settingsTree is a cluster whose substituteFrom ConfigMap comes from a
// Kustomization (settings) whose path mentions no Flux object, so a
// shard that does not hold it leaves it out, and the apps that
// substitute from it are built there without it.
func settingsTree(domain string, apps int) fluxrepo.Files {
	f := fluxrepo.Files{
		"clusters/prod/flux-system/sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 1m, url: "ssh://git@example.com/fleet.git", ref: {branch: main}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 10m, path: ./clusters/prod, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
`,
		"clusters/prod/settings.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: settings, namespace: flux-system}
spec: {interval: 10m, path: ./settings, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
`,
		"settings/vars.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: vars, namespace: flux-system}\ndata: {DOMAIN: " + domain + "}\n",
		"gateway/gateway.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: main, namespace: infra}
spec:
  gatewayClassName: eg
  listeners:
  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}
`,
		"clusters/prod/gateway.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: gateway, namespace: flux-system}
spec: {interval: 10m, path: ./gateway, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
`,
	}
	for i := range apps {
		name := fmt.Sprintf("app-%d", i)
		f["clusters/prod/"+name+".yaml"] = fmt.Sprintf(`apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: %s, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps/%s
  prune: true
  targetNamespace: %s
  sourceRef: {kind: GitRepository, name: flux-system}
  postBuild: {substituteFrom: [{kind: ConfigMap, name: vars}]}
`, name, name, name)
		f["apps/"+name+"/route.yaml"] = fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: %s}
spec:
  parentRefs: [{name: main, namespace: infra}]
  hostnames: ["%s.${DOMAIN:=unset.invalid}"]
  rules:
  - backendRefs: [{name: %s, port: 80}]
`, name, name, name)
		f["apps/"+name+"/service.yaml"] = fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata: {name: %s}\nspec: {ports: [{port: 80}]}\n", name)
	}
	return f
}

// A shard that leaves out the Kustomization applying a ConfigMap its own
// Kustomizations substitute from builds them with other inputs than the
// whole tree gives them: the merge does not take those builds (their
// cluster inputs differ) and builds them itself, and the review is still
// the unsharded one.
func TestFluxReportMergeBuildsWhatShardsBuiltOtherwise(t *testing.T) {
	dir, hashes := fluxCommits(t, settingsTree("example.com", 6), settingsTree("example.net", 6))
	args := []string{"flux", "diff", "--base", hashes[0], "--head", hashes[1], "--diff", "both", "clusters/prod"}
	full, fullErr, code := runIn(t, dir, append(args, "-o", "json")...)
	if code == ExitError || !strings.Contains(full, "example.net") {
		t.Fatalf("unsharded: exit %d\n%s\n%s", code, full, fullErr)
	}
	files, _ := fluxShardRun(t, dir, 4, args, rand.New(rand.NewPCG(1, 1)))
	merged, mergedErr, mcode := runIn(t, dir, append([]string{"report", "merge", "-o", "json"}, files...)...)
	if mcode != code || merged != full {
		t.Fatalf("merged (exit %d) differs from unsharded (exit %d)\n--- unsharded\n%s\n--- merged\n%s\n%s", mcode, code, full, merged, mergedErr)
	}
	m := mergeNote.FindStringSubmatch(mergedErr)
	if m == nil {
		t.Fatalf("no merge note:\n%s", mergedErr)
	}
	// The roots (2) and, at each revision, the apps of the three shards
	// that do not hold settings.
	if built, _ := strconv.Atoi(m[2]); built <= 2 {
		t.Errorf("the merge built %d: the shards' builds without the ConfigMap were taken", built)
	}
}

// A node's shard does not move when unrelated Kustomizations are added:
// every node a shard held before, it holds after.
func TestFluxShardStableWhenNodesAdded(t *testing.T) {
	dir, hashes := fluxCommits(t, settingsTree("example.com", 6), settingsTree("example.com", 30))
	rng := rand.New(rand.NewPCG(2, 2))
	for i := 1; i <= 4; i++ {
		before := map[string]bool{}
		for _, h := range [][2]string{{hashes[0], hashes[0]}, {hashes[1], hashes[1]}} {
			f := filepath.Join(t.TempDir(), "s.json")
			args := []string{"flux", "diff", "--base", h[0], "--head", h[1], "clusters/prod", "--shard", fmt.Sprintf("%d/4", i), "--shard-out", f}
			if out, stderr, code := runIn(t, dir, args...); code != ExitOK {
				t.Fatalf("exit %d\n%s%s", code, out, stderr)
			}
			var m struct{ Apps []string }
			data, _ := os.ReadFile(f)
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			if h[0] == hashes[0] {
				for _, id := range m.Apps {
					before[id] = true
				}
				continue
			}
			after := map[string]bool{}
			for _, id := range m.Apps {
				after[id] = true
			}
			for id := range before {
				if !after[id] {
					t.Errorf("shard %d/4: %s moved out when 24 apps were added", i, id)
				}
			}
			if len(after) <= len(before) {
				t.Errorf("shard %d/4: holds %d nodes after 24 were added, %d before", i, len(after), len(before))
			}
		}
	}
	_ = rng
}

// A flux diff shard file that is not one of the review is refused,
// naming it.
func TestFluxReportMergeRefusesBadShards(t *testing.T) {
	dir, commits := fluxHistory(t)
	rng := rand.New(rand.NewPCG(5, 6))
	args := []string{"flux", "diff", "--base", commits[0].Hash, "--head", commits[2].Hash, fluxrepo.ClusterDir}
	files, _ := fluxShardRun(t, dir, 2, args, rng)
	other, _ := fluxShardRun(t, dir, 2, []string{"flux", "diff", "--base", commits[1].Hash, "--head", commits[2].Hash, fluxrepo.ClusterDir}, rng)
	threeOf, _ := fluxShardRun(t, dir, 3, args, rng)
	strictOff, _ := fluxShardRun(t, dir, 2, append(append([]string{}, args...), "--strict=false"), rng)
	byIndex, otherOf, offOf := shardsByIndex(t, files), shardsByIndex(t, other), shardsByIndex(t, strictOff)
	edit := func(name string, fn func(m, s2 map[string]any)) string {
		return editShard(t, byIndex[1], byIndex[2], name, fn)
	}
	nodes := func(m map[string]any) map[string]any { return m["revisions"].([]any)[1].(map[string]any) }
	dupNode := edit("dup.json", func(m, s2 map[string]any) { m["apps"] = append(m["apps"].([]any), s2["apps"].([]any)[0]) })
	notMine := edit("notmine.json", func(m, s2 map[string]any) {
		nodes(m)["nodes"] = append(nodes(m)["nodes"].([]any), nodes(s2)["nodes"].([]any)[0])
	})
	badValue := edit("badvalue.json", func(m, _ map[string]any) {
		for _, n := range nodes(m)["nodes"].([]any) {
			if objs, ok := n.(map[string]any)["objects"].([]any); ok {
				objs[0].(map[string]any)["body"] = map[string]any{"i": "not a number"}
				return
			}
		}
		t.Fatal("shard 1 carries no object")
	})
	badStrict := edit("strict.json", func(m, _ map[string]any) { m["options"].(map[string]any)["strict"] = "sometimes" })
	// An argocd diff shard of the same revisions.
	argo := edit("argo.json", func(m, _ map[string]any) { m["command"] = "argocd diff" })
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"missing index", []string{byIndex[2]}, "shard 1/2 missing (got 1 of 2 shard files)"},
		{"index twice", []string{byIndex[1], byIndex[1]}, "shard 1/2 again"},
		{"duplicate node", []string{dupNode, byIndex[2]}, "dup.json too: a Kustomization, HelmRelease or ResourceSet is in one shard only"},
		{"node of another shard", []string{notMine, byIndex[2]}, "notmine.json: head revision: "},
		{"mixed revisions", []string{byIndex[1], otherOf[2]}, ": a shard of " + commits[1].Hash[:7]},
		{"mixed N", []string{threeOf[0], byIndex[2]}, "every shard of a review has the same N"},
		{"mixed options", []string{byIndex[1], offOf[2]}, "built with other options than"},
		{"bad value", []string{badValue, byIndex[2]}, "badvalue.json: "},
		{"bad strict", []string{badStrict, byIndex[2]}, `strict.json: options.strict "sometimes"`},
		{"argocd and flux", []string{argo, byIndex[2]}, `argo.json: `},
	} {
		out, stderr, code := runIn(t, dir, append([]string{"report", "merge"}, tc.files...)...)
		if code != ExitError || !strings.Contains(stderr, tc.want) || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.name, code, out, stderr, tc.want)
		}
	}
	// Flags the merge would have to read files for are refused (--source
	// for a directory outside the repository: TestFluxShardSourceInsideRepository).
	for _, flag := range [][]string{{"--vars-file", "x.yaml"}, {"--source", "GitRepository/a/b=" + t.TempDir()}, {"--changed-from", commits[0].Hash}, {"-o", "json"}} {
		f := filepath.Join(t.TempDir(), "s.json")
		_, stderr, code := runIn(t, dir, append(append(append([]string{}, args...), flag...), "--shard", "1/2", "--shard-out", f)...)
		if code != ExitError || !strings.Contains(stderr, flag[0]) {
			t.Errorf("%v with --shard: exit %d, %q", flag, code, stderr)
		}
	}
}
