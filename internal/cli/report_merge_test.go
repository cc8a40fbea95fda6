package cli

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/synth/monorepo"
)

// runShards builds the n shards of one review (args) into a directory
// of their own, calling each with the shard's file and its stdout, and
// returns the files, shuffled.
func runShards(t *testing.T, dir string, n int, args []string, rng *rand.Rand, each func(f, out string)) []string {
	t.Helper()
	sub := filepath.Join(t.TempDir(), fmt.Sprintf("shards-%d", n))
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	var files []string
	for i := 1; i <= n; i++ {
		f := filepath.Join(sub, fmt.Sprintf("shard-%d.json", i))
		out, stderr, code := runIn(t, dir, append(append([]string{}, args...), "--shard", fmt.Sprintf("%d/%d", i, n), "--shard-out", f)...)
		if code != ExitOK || !strings.Contains(out, " built (") {
			t.Fatalf("shard %d/%d: exit %d\n%s%s", i, n, code, out, stderr)
		}
		each(f, out)
		files = append(files, f)
	}
	rng.Shuffle(len(files), func(i, j int) { files[i], files[j] = files[j], files[i] })
	return files
}

// shardRun builds the n shards of one argocd diff and returns their
// files, shuffled, and how many were empty.
func shardRun(t *testing.T, dir string, n int, args []string, rng *rand.Rand) (files []string, empty int) {
	t.Helper()
	files = runShards(t, dir, n, args, rng, func(_, out string) {
		if strings.Contains(out, ": 0 Application(s) built") {
			empty++
		}
	})
	return files, empty
}

// mergeMatches runs the unsharded review (args, -o format) and report
// merge of files (-o format), with --report sarif=FILE at both when sarif
// is set, and fails unless their exit codes, stdout and SARIF are the
// same; it returns both stderrs for the caller to compare.
func mergeMatches(t *testing.T, dir, name string, args, files []string, format string, sarif bool) (fullErr, mergedErr string) {
	t.Helper()
	sarifFull := filepath.Join(t.TempDir(), "full.sarif")
	sarifMerged := filepath.Join(t.TempDir(), "merged.sarif")
	full, merged := []string{"-o", format}, []string{"report", "merge", "-o", format}
	if sarif {
		full, merged = append(full, "--report", "sarif="+sarifFull), append(merged, "--report", "sarif="+sarifMerged)
	}
	fullOut, fullErr, fullCode := runIn(t, dir, append(append([]string{}, args...), full...)...)
	if fullCode == ExitError {
		t.Fatalf("%s: unsharded: %s", name, fullErr)
	}
	mergedOut, mergedErr, mergedCode := runIn(t, dir, append(merged, files...)...)
	if mergedCode != fullCode {
		t.Fatalf("%s: exit %d merged, %d unsharded\n%s", name, mergedCode, fullCode, mergedErr)
	}
	if mergedOut != fullOut {
		t.Fatalf("%s: the merged review differs\n--- unsharded\n%s\n--- merged\n%s", name, fullOut, mergedOut)
	}
	if sarif {
		a, _ := os.ReadFile(sarifFull)
		b, _ := os.ReadFile(sarifMerged)
		if len(a) == 0 || string(a) != string(b) {
			t.Errorf("%s: SARIF differs (%d and %d bytes)", name, len(a), len(b))
		}
	}
	return fullErr, mergedErr
}

// The merged review of N shards, named in shuffled order, is the review
// argocd diff prints without --shard: the same bytes on stdout (JSON
// with the manifest diff, text, the Markdown comment), the same SARIF
// report, the same notices and exit code; for N = 1, 2, 4 and 7 over
// pairs of commits of a generated history (an app of apps, Helm,
// Kustomize and directory apps, a shared Gateway), with empty shards
// among them.
func TestReportMergeEqualsUnsharded(t *testing.T) {
	dir, commits := affectedHistory(t, 4, 323)
	t.Logf("history: %v", commits)
	rng := rand.New(rand.NewPCG(33, 3))
	root := "argocd/root.yaml"
	pairs := [][2]int{{0, len(commits) - 1}, {len(commits) - 1, 0}, {1, 2}}
	sawEmpty := false
	for _, p := range pairs {
		from, to := commits[p[0]], commits[p[1]]
		head := to.Hash
		if p[1] == len(commits)-1 {
			head = "HEAD" // the review names the revisions as given
		}
		common := []string{"argocd", "diff", "--repo-url", monorepo.RepoURL, "--base", from.Hash, "--head", head, "--now", "2026-12-02T00:00:00Z"}
		for _, review := range []string{"both", "routing"} {
			shardArgs := append(append([]string{}, common...), "--diff", review, root)
			for _, n := range []int{1, 2, 4, 7} {
				files, empty := shardRun(t, dir, n, shardArgs, rng)
				sawEmpty = sawEmpty || empty > 0
				for _, format := range []string{"json", "text", "markdown"} {
					name := fmt.Sprintf("%s → %s, --diff %s, %d shards, -o %s", from.What, to.What, review, n, format)
					fullErr, mergedErr := mergeMatches(t, dir, name, shardArgs, files, format, true)
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

// shardsByIndex maps each shard file's index to it.
func shardsByIndex(t *testing.T, files []string) map[int]string {
	t.Helper()
	out := map[int]string{}
	for _, f := range files {
		var h struct{ Index int }
		data, _ := os.ReadFile(f)
		if err := json.Unmarshal(data, &h); err != nil {
			t.Fatal(err)
		}
		out[h.Index] = f
	}
	return out
}

// editShard writes to a new file named name the shard file first as fn
// leaves it, given it and the shard file second, decoded.
func editShard(t *testing.T, first, second, name string, fn func(m, s2 map[string]any)) string {
	t.Helper()
	var m, s2 map[string]any
	for f, p := range map[string]*map[string]any{first: &m, second: &s2} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, p); err != nil {
			t.Fatal(err)
		}
	}
	fn(m, s2)
	out, _ := json.Marshal(m)
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A shard file that is not one of the review is refused, naming it.
func TestReportMergeRefusesBadShards(t *testing.T) {
	dir, commits := affectedHistory(t, 2, 323)
	rng := rand.New(rand.NewPCG(1, 2))
	args := []string{"argocd", "diff", "--repo-url", monorepo.RepoURL, "--base", commits[0].Hash, "--head", commits[2].Hash, "argocd/root.yaml"}
	files, _ := shardRun(t, dir, 2, args, rng)
	other, _ := shardRun(t, dir, 2, append([]string{"argocd", "diff", "--repo-url", monorepo.RepoURL, "--base", commits[1].Hash, "--head", commits[2].Hash}, "argocd/root.yaml"), rng)
	threeOf, _ := shardRun(t, dir, 3, args, rng)
	byIndex, otherOf := shardsByIndex(t, files), shardsByIndex(t, other)
	edit := func(name string, fn func(m, s2 map[string]any)) string {
		return editShard(t, byIndex[1], byIndex[2], name, fn)
	}
	big := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(big, []byte(`{"format":"routeguard-review-shard","version":1,"pad":"`+strings.Repeat("x", 2<<20)+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	wrongVersion := edit("v2.json", func(m, _ map[string]any) { m["version"] = 2 })
	// An app of shard 2 put into shard 1's file as well.
	dupApp := edit("dup.json", func(m, s2 map[string]any) {
		m["apps"] = append(m["apps"].([]any), s2["apps"].([]any)[0])
	})
	notMine := edit("notmine.json", func(m, s2 map[string]any) {
		head := m["revisions"].([]any)[1].(map[string]any)
		h2 := s2["revisions"].([]any)[1].(map[string]any)
		head["apps"] = append(head["apps"].([]any), h2["apps"].([]any)[0])
	})
	badValue := edit("badvalue.json", func(m, _ map[string]any) {
		head := m["revisions"].([]any)[1].(map[string]any)
		for _, a := range head["apps"].([]any) {
			if objs, ok := a.(map[string]any)["objects"].([]any); ok {
				objs[0].(map[string]any)["body"] = map[string]any{"i": "not a number"}
				return
			}
		}
		t.Fatal("shard 1 carries no object")
	})
	for _, tc := range []struct {
		name  string
		files []string
		max   string
		want  string
	}{
		{"wrong version", []string{wrongVersion, byIndex[2]}, "", "v2.json: shard file version 2; this routeguard reads version 1"},
		{"missing index", []string{byIndex[2]}, "", "shard 1/2 missing (got 1 of 2 shard files)"},
		{"index twice", []string{byIndex[1], byIndex[1]}, "", "shard 1/2 again"},
		{"duplicate app", []string{dupApp, byIndex[2]}, "", "dup.json too: an Application is in one shard only"},
		{"app of another shard", []string{notMine, byIndex[2]}, "", "notmine.json: head revision: Application"},
		{"mixed revisions", []string{byIndex[1], otherOf[2]}, "", ": a shard of " + commits[1].Hash[:7]},
		{"mixed N", []string{threeOf[0], byIndex[2]}, "", "shard-2.json: shard 2/2, "},
		{"mixed N message", []string{threeOf[0], byIndex[2]}, "", "every shard of a review has the same N"},
		{"oversize", []string{big, byIndex[2]}, "1", "big.json: larger than 1 MiB (--max-shard-size)"},
		{"not a shard file", []string{filepath.Join(dir, "argocd/root.yaml"), byIndex[2]}, "", "root.yaml: not a routeguard shard file"},
		{"bad value", []string{badValue, byIndex[2]}, "", "badvalue.json: "},
	} {
		args := []string{"report", "merge"}
		if tc.max != "" {
			args = append(args, "--max-shard-size", tc.max)
		}
		out, stderr, code := runIn(t, dir, append(args, tc.files...)...)
		if code != ExitError || !strings.Contains(stderr, tc.want) || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.name, code, out, stderr, tc.want)
		}
	}
}
