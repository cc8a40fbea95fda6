package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/synth/fluxrepo"
)

// fluxCountsLine is the header line that differs between a full and an
// affected-only flux diff (and only it may).
var fluxCountsLine = regexp.MustCompile(`(?m)^Kustomizations and HelmReleases: \d+ built, \d+ unaffected \(built once\), \d+ not buildable\n`)

func fluxHistory(t *testing.T) (string, []fluxrepo.Commit) {
	t.Helper()
	dir := t.TempDir()
	commits, err := fluxrepo.History(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, commits
}

// For every pair of commits of a generated Flux history (a shared base, a
// component, a values file behind a configMapGenerator and valuesFrom, the
// substituteFrom ConfigMap, a dependsOn chain, a chart in Git, a file
// added to a plain directory, the Gateway, the README), in both
// directions, the affected-only review is the full review: the same JSON
// (with the manifest diff) and text but for the counts, the same notices
// and exit code; and some pair left Kustomizations or HelmReleases
// unaffected.
func TestFluxDiffAffectedOnlyEqualsFull(t *testing.T) {
	dir, commits := fluxHistory(t)
	sawUnaffected, sawRouting := false, false
	// What each edit builds at base, from the commit before it: the root
	// always; web and blog read the base, api depends on web; the values
	// file is read by shop's Kustomization, whose ConfigMap shop's
	// HelmRelease reads; web substitutes from cluster-settings; api's
	// object changed; the README is read by nothing.
	wantBuilt := map[string]string{
		"base: the shared route's port":        " 4 built, 3 unaffected",
		"values: the shop's weight":            " 3 built, 4 unaffected",
		"substituteFrom: the cluster's domain": " 2 built, 5 unaffected",
		"dependsOn: api on blog too":           " 2 built, 5 unaffected",
		"unrelated: the README":                " 1 built, 6 unaffected",
		"gateway: the listener's port":         " 6 built, 1 unaffected",
	}
	for i, from := range commits {
		for j, to := range commits {
			if i == j {
				continue
			}
			for _, format := range []string{"json", "text"} {
				args := []string{"flux", "diff", "--head", to.Hash, "-o", format}
				if format == "json" {
					args = append(args, "--diff", "both")
				}
				fullOut, fullErr, fullCode := runIn(t, dir, append(args, "--base", from.Hash, fluxrepo.ClusterDir)...)
				affOut, affErr, affCode := runIn(t, dir, append(args, "--changed-from", from.Hash, fluxrepo.ClusterDir)...)
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
					if !fluxCountsLine.MatchString(affOut) || !fluxCountsLine.MatchString(fullOut) {
						t.Fatalf("%s: no counts line:\n%s\n%s", name, fullOut, affOut)
					}
					if !strings.Contains(affOut, " 0 unaffected") {
						sawUnaffected = true
					}
					if want, ok := wantBuilt[to.What]; ok && j == i+1 && !strings.Contains(affOut, "HelmReleases:"+want) {
						t.Errorf("%s: want%s:\n%s", name, want, affOut)
					}
					if !strings.Contains(fullOut, " 0 not buildable") {
						t.Fatalf("%s: the generated tree does not build whole:\n%s\n%s", name, fullOut, fullErr)
					}
					if j == i+1 && !strings.HasPrefix(to.What, "unrelated") && !strings.HasPrefix(to.What, "dependsOn") && strings.Contains(fullOut, "no routing change") {
						t.Errorf("%s: the edit changes no routing:\n%s", name, fullOut)
					}
					if !strings.Contains(fullOut, " 0 unaffected") {
						t.Errorf("%s: a full review left some unaffected:\n%s", name, fullOut)
					}
					sawRouting = sawRouting || strings.Contains(fullOut, "route entries changed")
					fullOut, affOut = fluxCountsLine.ReplaceAllString(fullOut, ""), fluxCountsLine.ReplaceAllString(affOut, "")
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
		t.Error("no pair left any Kustomization or HelmRelease unaffected: the test proves nothing about skipping")
	}
	if !sawRouting {
		t.Error("no pair changed a route entry: the history does not exercise the review")
	}
}
