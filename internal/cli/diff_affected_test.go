package cli

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/synth/monorepo"
)

// affectedHistory is a generated Argo CD monorepo's history: 9 apps (an
// app of apps, Helm apps on a shared chart with values files outside it,
// Kustomize overlays over shared bases and a component, some declaring
// manifest-generate-paths, plain directories, one shared Gateway) and
// random edits: apps added and removed, a shared base, the chart, the
// component, the Gateway's listener, an Application's destination, one
// app's weights, the README.
func affectedHistory(t *testing.T, edits int, seed uint64) (string, []monorepo.Commit) {
	t.Helper()
	dir := t.TempDir()
	commits, err := monorepo.History(dir, 9, edits, seed)
	if err != nil {
		t.Fatal(err)
	}
	return dir, commits
}

// countsLine is the header line that differs between a full and an
// affected-only review (and only it may).
var countsLine = regexp.MustCompile(`(?m)^Applications: \d+ built, \d+ unaffected \(built once\), \d+ not buildable\n`)

// withoutCounts drops the counts from a JSON review.
func withoutCounts(t *testing.T, doc string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	if _, ok := m["apps"]; !ok {
		t.Fatalf("the JSON review has no apps counts:\n%s", doc)
	}
	delete(m, "apps")
	out, _ := json.MarshalIndent(m, "", "  ")
	return string(out)
}

// stderrWithoutAffectedNote drops the affected-only note (and the counts
// it gives) from stderr.
func stderrWithoutAffectedNote(s string) string {
	var keep []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.Contains(l, "affected-only: ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}

// For every pair of commits of a generated history, in both directions,
// the affected-only review is the full review: the same JSON and text
// (but for the counts; the JSON with the manifest diff), the same notices
// and exit code; and it built at
// both revisions fewer Applications whenever the change left some alone.
func TestArgoCDDiffAffectedOnlyEqualsFull(t *testing.T) {
	dir, commits := affectedHistory(t, 7, 323)
	kinds := map[string]bool{}
	for _, c := range commits[1:] {
		kinds[strings.Fields(c.What)[0]] = true
	}
	t.Logf("history: %v", commits)
	if len(kinds) < 7 {
		t.Fatalf("the history's edits are of %d kinds only (%v): pick another seed", len(kinds), kinds)
	}
	common := []string{"argocd", "diff", "--repo-url", monorepo.RepoURL}
	root := "argocd/root.yaml"
	sawUnaffected := false
	for i, from := range commits {
		for j, to := range commits {
			if i == j {
				continue
			}
			for _, format := range []string{"json", "text"} {
				// JSON with the manifest diff too (--diff=both: every
				// changed object of every Application, unaffected ones
				// included, must come out the same).
				args := append(append([]string{}, common...), "--head", to.Hash, "-o", format)
				if format == "json" {
					args = append(args, "--diff", "both")
				}
				fullOut, fullErr, fullCode := runIn(t, dir, append(args, "--base", from.Hash, root)...)
				affOut, affErr, affCode := runIn(t, dir, append(args, "--changed-from", from.Hash, root)...)
				name := from.What + " → " + to.What
				if fullCode != affCode {
					t.Errorf("%s: exit %d full, %d affected-only\n%s", name, fullCode, affCode, affErr)
				}
				if fullCode == ExitError {
					t.Fatalf("%s: %s", name, fullErr)
				}
				if format == "json" {
					fullOut, affOut = withoutCounts(t, fullOut), withoutCounts(t, affOut)
				} else {
					if !countsLine.MatchString(affOut) {
						t.Fatalf("%s: no counts line:\n%s", name, affOut)
					}
					if !strings.Contains(affOut, " 0 unaffected") {
						sawUnaffected = true
					}
					fullOut, affOut = countsLine.ReplaceAllString(fullOut, ""), countsLine.ReplaceAllString(affOut, "")
				}
				if fullOut != affOut {
					t.Errorf("%s (-o %s): the affected-only review differs from the full review\n--- full\n%s\n--- affected-only\n%s", name, format, fullOut, affOut)
				}
				if f, a := stderrWithoutAffectedNote(fullErr), stderrWithoutAffectedNote(affErr); f != a {
					t.Errorf("%s: notices differ\n--- full\n%s\n--- affected-only\n%s", name, f, a)
				}
			}
		}
	}
	if !sawUnaffected {
		t.Error("no pair left any Application unaffected: the test proves nothing about skipping")
	}
}

func TestArgoCDDiffChangedFiles(t *testing.T) {
	dir, commits := affectedHistory(t, 1, 2) // one edit: app-0002's weights
	if !strings.HasPrefix(commits[1].What, "weights of app-0002") {
		t.Fatalf("edit %q, want app-0002's weights", commits[1].What)
	}
	base, head := commits[0].Hash, commits[1].Hash
	args := []string{"argocd", "diff", "--repo-url", monorepo.RepoURL, "--base", base, "--head", head}
	list := dir + "/changed.txt"
	write := func(s string) {
		if err := os.WriteFile(list, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("apps/app-0002/route.yaml\n")
	out, stderr, code := runIn(t, dir, append(args, "--changed-files", list, "argocd/root.yaml")...)
	if code != ExitFindings || !strings.Contains(out, "Applications: 1 built, 10 unaffected") || strings.Contains(stderr, "does not list") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	// A list that misses the change: the change is found anyway, and the
	// run says the list was short.
	write("README.md\n")
	out, stderr, _ = runIn(t, dir, append(args, "--changed-files", list, "argocd/root.yaml")...)
	if !strings.Contains(out, "Applications: 1 built, 10 unaffected") || !strings.Contains(stderr, "--changed-files does not list 1 path(s) that differ between the revisions (apps/app-0002/route.yaml)") {
		t.Fatalf("%s\n%s", out, stderr)
	}
	for _, tc := range []struct {
		list string
		args []string
		want string
	}{
		{list: "ok.yaml\n../../etc/passwd\n", want: `changed.txt:2: "../../etc/passwd" is outside the repository`},
		{args: []string{"--changed-from", "HEAD~5"}, want: "--changed-from HEAD~5 and --base " + base + " name different revisions"},
	} {
		a := append([]string{}, args...)
		if tc.list != "" {
			write(tc.list)
			a = append(a, "--changed-files", list)
		}
		_, stderr, code := runIn(t, dir, append(append(a, tc.args...), "argocd/root.yaml")...)
		if code != ExitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, tc.want)
		}
	}
}
