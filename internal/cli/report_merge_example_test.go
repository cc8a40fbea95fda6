package cli

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/synth/monorepo"
)

// exampleCommands are the routeguard command lines of a CI example, with
// the shell's variables (vars) substituted, redirections and || left out,
// quotes dropped and globs expanded.
func exampleCommands(t *testing.T, file string, vars map[string]string, cwd string, glob bool) [][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", file))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, line := range regexp.MustCompile(`(?m)\broutegua`+`rd (?:argocd diff|flux diff|report merge) [^\n]*`).FindAllString(string(data), -1) {
		line, _, _ = strings.Cut(line, " >")
		line, _, _ = strings.Cut(line, " ||")
		keys := slices.Collect(maps.Keys(vars))
		slices.SortFunc(keys, func(a, b string) int { return len(b) - len(a) }) // $SHARDS before $SHARD
		for _, k := range keys {
			line = strings.ReplaceAll(line, "$"+k, vars[k])
		}
		if strings.Contains(line, "$") {
			t.Fatalf("%s: a variable the test does not know in %q", file, line)
		}
		var args []string
		for _, f := range strings.Fields(line)[1:] {
			f = strings.ReplaceAll(f, `"`, "")
			if strings.Contains(f, "*") && glob {
				if !filepath.IsAbs(f) {
					f = filepath.Join(cwd, f)
				}
				m, _ := filepath.Glob(f)
				if len(m) == 0 {
					t.Fatalf("%s: %s matches nothing", file, f)
				}
				args = append(args, m...)
				continue
			}
			args = append(args, f)
		}
		out = append(out, args)
	}
	if len(out) != 2 {
		t.Fatalf("%s: %d routeguard command lines, want the shard's and the merge's", file, len(out))
	}
	return out
}

// The sharded review examples (GitHub Actions matrix, GitLab
// parallel:matrix) run as written: their shard command for every shard
// of the matrix, then their merge, in the checkout of a generated
// repository (with --repo-url added: the generated repository is no
// clone of one), and the merge prints the review argocd diff prints
// unsharded.
func TestShardedReviewExamplesRun(t *testing.T) {
	dir, commits := affectedHistory(t, 2, 323)
	full := []string{"argocd", "diff", "--base", commits[0].Hash, "--head", "HEAD", "-o", "markdown", "--repo-url", monorepo.RepoURL, "argocd/root.yaml"}
	fullOut, _, fullCode := runIn(t, dir, full...)
	if fullCode == ExitError {
		t.Fatal(fullOut)
	}
	for _, tc := range []struct{ file, base string }{
		{"examples/ci/github-sharded-review.yml", "BASE"},
		{"examples/ci/gitlab-sharded-review.yml", "CI_MERGE_REQUEST_DIFF_BASE_SHA"},
	} {
		old, _ := filepath.Glob(filepath.Join(dir, "shard-*.json"))
		for _, f := range old {
			os.Remove(f)
		}
		vars := map[string]string{tc.base: commits[0].Hash, "OUT": t.TempDir(), "SHARDS": dir}
		for _, s := range []string{"1", "2", "3", "4"} {
			vars["SHARD"] = s
			shard := exampleCommands(t, tc.file, vars, dir, false)[0]
			shard = append(shard[:len(shard)-1:len(shard)-1], "--repo-url", monorepo.RepoURL, shard[len(shard)-1])
			if out, stderr, code := runIn(t, dir, shard...); code != ExitOK {
				t.Fatalf("%s: %v: exit %d\n%s%s", tc.file, shard, code, out, stderr)
			}
		}
		merge := exampleCommands(t, tc.file, vars, dir, true)[1]
		// Report files are opened relative to the process's working
		// directory, which the examples mean as the job's checkout:
		// dir here, not this package's directory.
		for i, arg := range merge {
			if i > 0 && merge[i-1] == "--report" {
				if k, file, ok := strings.Cut(arg, "="); ok && !filepath.IsAbs(file) {
					merge[i] = k + "=" + filepath.Join(dir, file)
				}
			}
		}
		mergedOut, mergedErr, mergedCode := runIn(t, dir, merge...)
		if mergedCode != fullCode || mergedOut != fullOut {
			t.Errorf("%s: merge %v: exit %d (unsharded %d)\n%s\n--- merged\n%s\n--- unsharded\n%s", tc.file, merge, mergedCode, fullCode, mergedErr, mergedOut, fullOut)
		}
	}
}

// The Flux sharded review example runs as written on a generated Flux
// history: each shard of its matrix, then its merge, which prints the
// review flux diff prints unsharded.
func TestFluxShardedReviewExampleRuns(t *testing.T) {
	const file = "examples/flux/ci/github-sharded-review.yml"
	dir, commits := fluxHistory(t)
	base := commits[0].Hash
	full := []string{"flux", "diff", "--base", base, "--head", "HEAD", "--diff", "both", "-o", "markdown", "clusters/prod"}
	fullOut, fullErr, fullCode := runIn(t, dir, full...)
	if fullCode == ExitError || !strings.Contains(fullOut, "routeguard") {
		t.Fatalf("unsharded: exit %d\n%s%s", fullCode, fullOut, fullErr)
	}
	vars := map[string]string{"BASE": base, "OUT": t.TempDir(), "SHARDS": dir}
	for _, s := range []string{"1", "2", "3", "4"} {
		vars["SHARD"] = s
		shard := exampleCommands(t, file, vars, dir, false)[0]
		if out, stderr, code := runIn(t, dir, shard...); code != ExitOK {
			t.Fatalf("%v: exit %d\n%s%s", shard, code, out, stderr)
		}
	}
	merge := exampleCommands(t, file, vars, dir, true)[1]
	mergedOut, mergedErr, mergedCode := runIn(t, dir, merge...)
	if mergedCode != fullCode || mergedOut != fullOut {
		t.Errorf("merge %v: exit %d (unsharded %d)\n%s\n--- merged\n%s\n--- unsharded\n%s", merge, mergedCode, fullCode, mergedErr, mergedOut, fullOut)
	}
}
