package ci

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// shallowProject turns project (one commit, the base) into what GitLab's
// runner checks out: two more commits on top, pushed to a bare origin, and
// the project a clone of it at depth 1, so the base commit is not there.
// With origin false the origin is gone too (nothing to fetch from). It
// returns the base's hash.
func shallowProject(t *testing.T, project string, origin bool) string {
	t.Helper()
	out, err := exec.Command("git", "-C", project, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSpace(string(out))
	for _, v := range []string{"one", "two"} {
		os.WriteFile(filepath.Join(project, "examples", "NOTE"), []byte(v+"\n"), 0o644)
		gitIn(t, project, "add", "-A")
		gitIn(t, project, "commit", "-q", "-m", v)
	}
	bare := filepath.Join(t.TempDir(), "origin.git")
	gitIn(t, project, "clone", "-q", "--bare", project, bare)
	// GitLab serves any reachable commit by its hash.
	gitIn(t, bare, "config", "uploadpack.allowReachableSHA1InWant", "true")
	shallow := filepath.Join(t.TempDir(), "clone")
	gitIn(t, project, "clone", "-q", "--depth", "1", "file://"+bare, shallow)
	if err := os.RemoveAll(filepath.Join(project, ".git")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(shallow, ".git"), filepath.Join(project, ".git")); err != nil {
		t.Fatal(err)
	}
	if !origin {
		os.RemoveAll(bare)
	}
	return base
}

// TestGitLabShallowMergeBase: GitLab's clone is shallow; a merge base
// older than its depth is fetched alone and the review is against it; when
// it cannot be fetched, the job fails saying the clone is shallow and what
// to set, never a review of HEAD against itself.
func TestGitLabShallowMergeBase(t *testing.T) {
	t.Parallel()
	needTools(t)
	for _, origin := range []bool{true, false} {
		vars := map[string]string{"CI_PIPELINE_SOURCE": "merge_request_event"}
		in := map[string]string{"version": "v" + releaseVersion, "download-url": serveRelease(t, false), "command": "diff", "paths": "examples/apps/routing/gateways"}
		_, code, log := gitlabRunWith(t, gitlabOptions{inputs: in, vars: vars, commit: true, prepare: func(project string) {
			vars["CI_MERGE_REQUEST_DIFF_BASE_SHA"] = shallowProject(t, project, origin)
		}})
		base := vars["CI_MERGE_REQUEST_DIFF_BASE_SHA"]
		if !strings.Contains(log, "routeguard: the merge base "+base+" is not in this clone (a shallow clone: GIT_DEPTH); fetching it") {
			t.Errorf("origin %v: the job did not see the base was missing:\n%s", origin, log)
		}
		if origin {
			if code != 0 || !strings.Contains(log, marker) || !strings.Contains(log, base[:12]) {
				t.Errorf("base fetched: exit %d, want a review against %s:\n%s", code, base, log)
			}
			continue
		}
		if code != 2 || !strings.Contains(log, "set GIT_DEPTH: 0 for this job") || !strings.Contains(log, "it is a shallow clone") || strings.Contains(log, marker) {
			t.Errorf("base not fetchable: exit %d, want 2 naming the shallow clone and no review:\n%s", code, log)
		}
	}
}
