package ci

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const (
	glList = "/api/v4/projects/42/merge_requests/7/notes"
	glItem = glList + "/"
)

// gitlabDiff runs the template's job with command: diff as in a merge
// request pipeline of merge request !7 of project 42, against the fake API
// srv (vars replace these variables), and returns the review it wrote.
func gitlabDiff(t *testing.T, srv *httptest.Server, vars map[string]string) (code int, log, review string) {
	t.Helper()
	needTools(t)
	in := map[string]string{"version": "v" + releaseVersion, "download-url": serveRelease(t, false),
		"command": "diff", "paths": "examples/apps/routing/gateways"}
	env := map[string]string{"CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_DIFF_BASE_SHA": "HEAD",
		"CI_MERGE_REQUEST_IID": "7", "CI_PROJECT_ID": "42", "ROUTEGUARD_GITLAB_TOKEN": "glpat-test-token"}
	if srv != nil {
		env["CI_API_V4_URL"] = srv.URL + "/api/v4"
	}
	for k, v := range vars {
		env[k] = v
	}
	project, code, log := gitlabRunEnv(t, in, env, true)
	data, err := os.ReadFile(filepath.Join(project, "routeguard-diff.md"))
	if err != nil || !strings.HasPrefix(string(data), marker+"\n") {
		t.Fatalf("routeguard-diff.md: %v\n%s\n%s", err, data, log)
	}
	if code != 0 || !strings.Contains(log, string(data)) {
		t.Fatalf("job exit %d (want 0: no error introduced), review in the log: %v\n%s", code, strings.Contains(log, string(data)), log)
	}
	return code, log, string(data)
}

// TestGitLabNoteCreatedThenUpdated: the first pipeline of a merge request
// creates the note, with the review as its body and the token in
// PRIVATE-TOKEN; the next one updates that note (no second one).
func TestGitLabNoteCreatedThenUpdated(t *testing.T) {
	t.Parallel()
	f := &fakeThread{}
	srv := f.serve(t, glList, glItem, http.MethodPut, "PRIVATE-TOKEN")
	_, log, review := gitlabDiff(t, srv, nil)
	notes, reqs := f.snapshot()
	if len(notes) != 1 || notes[0].Body != review || count(reqs, http.MethodPost, glList) != 1 {
		t.Fatalf("after the first pipeline: notes %+v, requests %v, want one note with the review\n%s", notes, reqs, log)
	}
	for _, q := range reqs {
		if q.auth != "glpat-test-token" {
			t.Errorf("%v: PRIVATE-TOKEN %q, want the token", q, q.auth)
		}
	}
	if strings.Contains(log, "routeguard: could not") {
		t.Errorf("complaints in the log:\n%s", log)
	}

	f.mu.Lock()
	f.comments[0].Body = marker + "\nstale review"
	f.requests = nil
	f.mu.Unlock()
	_, log, review = gitlabDiff(t, srv, nil)
	notes, reqs = f.snapshot()
	if len(notes) != 1 || notes[0].Body != review {
		t.Fatalf("after the second pipeline: notes %+v, want the one note updated\nrequests %v\n%s", notes, reqs, log)
	}
	if count(reqs, http.MethodPost, glList) != 0 || count(reqs, http.MethodPut, glItem+"1000") != 1 {
		t.Errorf("requests %v, want one PUT and no POST", reqs)
	}
}

// TestGitLabNotePaging: 100 other notes (a full page) come before
// routeguard's; the job reads the second page and updates it.
func TestGitLabNotePaging(t *testing.T) {
	t.Parallel()
	f := &fakeThread{}
	f.unrelated(100)
	id := f.add(marker + "\nstale review")
	f.unrelated(5)
	srv := f.serve(t, glList, glItem, http.MethodPut, "PRIVATE-TOKEN")
	_, log, review := gitlabDiff(t, srv, nil)
	notes, reqs := f.snapshot()
	if got := strings.Join(pages(reqs, glList), ","); got != "1,2" {
		t.Errorf("pages read: %s, want 1,2 (%v)", got, reqs)
	}
	if o := ours(notes); len(o) != 1 || o[0].ID != id || o[0].Body != review || len(notes) != 106 {
		t.Errorf("routeguard's notes %+v of %d, want note %d updated\nrequests %v\n%s", o, len(notes), id, reqs, log)
	}
}

// TestGitLabNoteNotPosted: whatever keeps the note from being posted (no
// merge request, no token, no jq, a 403) is said in the log and does not
// fail the job; a listing that fails writes nothing.
func TestGitLabNoteNotPosted(t *testing.T) {
	t.Parallel()
	// A PATH with what the job needs, but neither jq nor apk.
	noJQ := t.TempDir()
	for _, tool := range []string{"uname", "mkdir", "curl", "awk", "sha256sum", "cut", "tar", "gzip", "cat", "rm", "mktemp"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(p, filepath.Join(noJQ, tool)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name     string
		vars     map[string]string
		fail     string // the method the API refuses
		existing bool
		log      string
		requests bool
	}{
		{name: "not a merge request", vars: map[string]string{"CI_MERGE_REQUEST_IID": "", "CI_PIPELINE_SOURCE": "push"},
			log: "routeguard: not a merge request pipeline: the review is in the job log"},
		{name: "no token", vars: map[string]string{"ROUTEGUARD_GITLAB_TOKEN": ""},
			log: "routeguard: the review is not posted on the merge request: set a CI/CD variable ROUTEGUARD_GITLAB_TOKEN"},
		{name: "no jq", vars: map[string]string{"PATH": noJQ},
			log: "routeguard: the review is not posted on the merge request: that needs jq and curl"},
		{name: "create refused", fail: http.MethodPost, requests: true,
			log: "routeguard: could not post the note (does ROUTEGUARD_GITLAB_TOKEN have the api scope?)"},
		{name: "update refused", fail: http.MethodPut, existing: true, requests: true,
			log: "routeguard: could not update note 1000"},
		{name: "listing refused", fail: http.MethodGet, existing: true, requests: true,
			log: "routeguard: could not read the notes of merge request !7, so the review is not posted"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeThread{fail: map[string]int{tt.fail: http.StatusForbidden}}
			if tt.existing {
				f.add(marker + "\nstale review")
			}
			srv := f.serve(t, glList, glItem, http.MethodPut, "PRIVATE-TOKEN")
			_, log, _ := gitlabDiff(t, srv, tt.vars)
			if !strings.Contains(log, tt.log) {
				t.Errorf("log lacks %q:\n%s", tt.log, log)
			}
			notes, reqs := f.snapshot()
			if tt.requests != (len(reqs) > 0) {
				t.Errorf("requests %v", reqs)
			}
			if tt.fail == http.MethodGet && len(reqs) != 1 {
				t.Errorf("wrote after a failed listing: %v", reqs)
			}
			if len(notes) > 1 || (len(notes) == 1 && notes[0].Body != marker+"\nstale review") {
				t.Errorf("notes %+v changed", notes)
			}
		})
	}
}

// TestGitLabTreeDiffs: command flux-diff and argocd-diff run routeguard's
// whole-tree diffs and write the review as diff does.
func TestGitLabTreeDiffs(t *testing.T) {
	t.Parallel()
	needTools(t)
	for command, paths := range map[string]string{"flux-diff": "examples/flux/clusters/prod", "argocd-diff": "examples/argocd/root-app.yaml"} {
		in := map[string]string{"version": "v" + releaseVersion, "download-url": serveRelease(t, false), "command": command, "paths": paths}
		env := map[string]string{"CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_DIFF_BASE_SHA": "HEAD"}
		project, code, log := gitlabRunEnv(t, in, env, true)
		data, err := os.ReadFile(filepath.Join(project, "routeguard-diff.md"))
		if code != 0 || err != nil || !strings.HasPrefix(string(data), marker+"\n") || !strings.Contains(string(data), paths) {
			t.Errorf("%s: exit %d, review %v:\n%s\n%s", command, code, err, data, log)
		}
	}
}
