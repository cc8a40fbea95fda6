package cli

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/synth/fluxrepo"
	"github.com/routeguard/routeguard/internal/synth/monorepo"
)

// diffShardPaths are the paths a routeguard diff of the generated
// monorepo reviews: every app's directory (those of Helm apps are in
// neither revision, those added or removed by the history in one), the
// shared chart, a base and the platform.
func diffShardPaths() []string {
	paths := []string{"platform", "charts/web", "bases/base-0", "components/team"}
	for i := range 12 {
		paths = append(paths, "apps/"+monorepo.Name(i))
	}
	return paths
}

// diffShardRun builds the n shards of one routeguard diff and returns
// their files, shuffled, the paths each holds, and how many were empty.
func diffShardRun(t *testing.T, dir string, n int, args []string, rng *rand.Rand) (files []string, held map[string][]string, empty int) {
	t.Helper()
	held = map[string][]string{}
	files = runShards(t, dir, n, args, rng, func(f, out string) {
		if !strings.Contains(out, "app path(s) built") {
			t.Fatalf("a diff shard: %s", out)
		}
		if strings.Contains(out, ": 0 app path(s) built") {
			empty++
		}
		var h struct {
			Paths []struct{ Path string } `json:"appPaths"`
		}
		data, _ := os.ReadFile(f)
		if err := json.Unmarshal(data, &h); err != nil {
			t.Fatal(err)
		}
		for _, p := range h.Paths {
			held[f] = append(held[f], p.Path)
		}
	})
	return files, held, empty
}

// The merged review of N routeguard diff shards, named in shuffled
// order, is the review diff prints without --shard: the same bytes on
// stdout (JSON with the manifest diff, text, Markdown), the same SARIF
// report (every finding at head), the same notices and exit code; for
// N = 1, 2, 4 and 7 over pairs of commits of the generated monorepo's
// history, with paths added, removed, in neither revision and the same
// at both. Each path is carried by exactly one shard.
func TestDiffReportMergeEqualsUnsharded(t *testing.T) {
	dir, commits := affectedHistory(t, 4, 333)
	t.Logf("history: %v", commits)
	rng := rand.New(rand.NewPCG(33, 5))
	paths := diffShardPaths()
	last := len(commits) - 1
	sawEmpty := false
	for _, p := range [][2]int{{0, last}, {last, 0}, {1, 2}} {
		from, to := commits[p[0]], commits[p[1]]
		for _, review := range []string{"both", "routing"} {
			args := append([]string{"diff", "--base", from.Hash, "--head", to.Hash, "--diff", review}, paths...)
			ns := []int{1, 2, 4, 7}
			if p[0] == 0 && review == "both" {
				ns = append(ns, 19) // more shards than paths: some empty
			}
			for _, n := range ns {
				files, held, empty := diffShardRun(t, dir, n, args, rng)
				sawEmpty = sawEmpty || empty > 0
				owner := map[string]string{}
				for f, rels := range held {
					for _, rel := range rels {
						if owner[rel] != "" {
							t.Fatalf("%s carried by %s and %s", rel, owner[rel], f)
						}
						owner[rel] = f
					}
				}
				if len(owner) != len(paths) {
					t.Fatalf("%d shards carry %d of %d paths: %v", n, len(owner), len(paths), owner)
				}
				for _, format := range []string{"json", "text", "markdown"} {
					name := fmt.Sprintf("%s → %s, --diff %s, %d shards, -o %s", from.What, to.What, review, n, format)
					// JSON without --report: the paths the change leaves
					// alone stand for both revisions with their render at
					// head; with it, analyzed at head.
					fullErr, mergedErr := mergeMatches(t, dir, name, args, files, format, format != "json")
					if mergedErr != fullErr {
						t.Errorf("%s: notices differ\n--- unsharded\n%s\n--- merged\n%s", name, fullErr, mergedErr)
					}
				}
			}
		}
	}
	if !sawEmpty {
		t.Error("no shard was empty: the test proves nothing about empty shards")
	}
}

// A routeguard diff shard file that does not fit the review is refused,
// naming the file and what is wrong.
func TestDiffReportMergeRefusesBadShards(t *testing.T) {
	dir, commits := affectedHistory(t, 2, 333)
	rng := rand.New(rand.NewPCG(3, 3))
	args := append([]string{"diff", "--base", commits[0].Hash, "--head", commits[2].Hash}, diffShardPaths()...)
	files, held, _ := diffShardRun(t, dir, 2, args, rng)
	byIndex := shardsByIndex(t, files)
	if len(held[byIndex[1]]) == 0 || len(held[byIndex[2]]) == 0 {
		t.Fatalf("want both shards to hold paths: %v", held)
	}
	argo, _ := shardRun(t, dir, 2, []string{"argocd", "diff", "--repo-url", monorepo.RepoURL, "--base", commits[0].Hash, "--head", commits[2].Hash, "argocd/root.yaml"}, rng)
	argoOf := shardsByIndex(t, argo)
	edit := func(name string, fn func(m, s2 map[string]any)) string {
		return editShard(t, byIndex[1], byIndex[2], name, fn)
	}
	notMine := edit("notmine.json", func(m, s2 map[string]any) {
		m["appPaths"] = append(m["appPaths"].([]any), s2["appPaths"].([]any)[0])
		m["apps"] = append(m["apps"].([]any), s2["apps"].([]any)[0])
	})
	unlisted := edit("unlisted.json", func(m, _ map[string]any) {
		m["apps"] = m["apps"].([]any)[1:]
	})
	notReviewed := edit("notreviewed.json", func(m, _ map[string]any) {
		o := m["options"].(map[string]any)
		o["paths"] = o["paths"].([]any)[1:]
	})
	noFlags := edit("noflags.json", func(m, _ map[string]any) {
		m["options"].(map[string]any)["appFlags"] = ""
	})
	sameWithBase := edit("samebase.json", func(m, _ map[string]any) {
		for _, c := range m["appPaths"].([]any) {
			c := c.(map[string]any)
			if c["same"] == true {
				c["base"] = c["head"]
				return
			}
		}
		t.Fatal("shard 1 carries no path the same at both revisions")
	})
	otherFlags := edit("otherflags.json", func(m, _ map[string]any) {
		m["options"].(map[string]any)["appFlags"] = `{"Render":{"Namespace":"x"}}`
	})
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"path of another shard", []string{notMine, byIndex[2]}, "notmine.json: app path "},
		{"path of another shard, which", []string{notMine, byIndex[2]}, "is not in shard 1/2 (it falls in shard 2)"},
		{"path not listed", []string{unlisted, byIndex[2]}, "unlisted.json: "},
		{"path not reviewed", []string{notReviewed, byIndex[2]}, "notreviewed.json (paths): run every shard with the same flags and paths"},
		{"no flags", []string{noFlags, byIndex[2]}, "noflags.json: options.appFlags is empty"},
		{"same with base", []string{sameWithBase, byIndex[2]}, "the same at both revisions, but not carried as such"},
		{"other flags", []string{otherFlags, byIndex[2]}, "otherflags.json (appFlags)"},
		{"missing shard", []string{byIndex[1]}, "shard 2/2 missing"},
		{"an argocd diff shard", []string{byIndex[1], argoOf[2]}, "argocd diff"},
	} {
		out, stderr, code := runIn(t, dir, append([]string{"report", "merge"}, tc.files...)...)
		if code != ExitError || !strings.Contains(stderr, tc.want) || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.name, code, out, stderr, tc.want)
		}
	}
}

// The merge of diff shards writes only what it reads (Trees.WriteUnder): the
// head revision's CODEOWNERS, whose owners the shared-routing section
// names, still reaches it; the merged review is the unsharded one.
func TestDiffReportMergeReadsCodeOwners(t *testing.T) {
	gateway := "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: public, namespace: edge}\nspec:\n  gatewayClassName: envoy\n  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]\n"
	route := func(w string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: web, namespace: shop}\nspec:\n  parentRefs: [{name: public, namespace: edge}]\n  rules:\n  - backendRefs: [{name: web, port: 80, weight: " + w + "}, {name: canary, port: 80, weight: 10}]\n" +
			"---\napiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\nspec: {ports: [{port: 80}]}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: canary, namespace: shop}\nspec: {ports: [{port: 80}]}\n"
	}
	step := func(w string) fluxrepo.Files {
		return fluxrepo.Files{".github/CODEOWNERS": "/platform/ @acme/platform\n/shop/ @acme/shop\n", "platform/gateway.yaml": gateway, "shop/route.yaml": route(w), "docs/readme.md": "# docs\n"}
	}
	dir, hashes := fluxCommits(t, step("90"), step("50"))
	args := []string{"diff", "--base", hashes[0], "--head", hashes[1], "--diff", "both", "platform", "shop"}
	files, _, _ := diffShardRun(t, dir, 2, args, rand.New(rand.NewPCG(1, 1)))
	_, mergedErr := mergeMatches(t, dir, "CODEOWNERS", args, files, "markdown", true)
	full, _, _ := runIn(t, dir, append(append([]string{}, args...), "-o", "markdown")...)
	if !strings.Contains(full, ".github/CODEOWNERS:1 /platform/") {
		t.Fatalf("the review does not name the Gateway's owners from CODEOWNERS (the test proves nothing):\n%s\n%s", full, mergedErr)
	}
}
