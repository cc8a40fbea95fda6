package ci

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// glDiff says how gitlabDiffWith runs the job.
type glDiff struct {
	vars    map[string]string // replace the merge request pipeline's variables
	release string            // download-url; default the real release
	prepare func(project string)
}

// gitlabDiffWith runs the template's job with command: diff as in a merge
// request pipeline of merge request !7 of project 42, against the fake API
// srv, and returns the job's exit code and log, the project, and the
// review: what routeguard itself prints for that diff.
func gitlabDiffWith(t *testing.T, srv *httptest.Server, o glDiff) (code int, log, project, review string) {
	t.Helper()
	needTools(t)
	if o.release == "" {
		o.release = serveRelease(t, false)
	}
	in := map[string]string{"version": "v" + releaseVersion, "download-url": o.release,
		"command": "diff", "paths": "examples/apps/routing/gateways"}
	env := map[string]string{"CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_DIFF_BASE_SHA": "HEAD",
		"CI_MERGE_REQUEST_IID": "7", "CI_PROJECT_ID": "42", "ROUTEGUARD_GITLAB_TOKEN": "glpat-test-token",
		"CI_COMMIT_SHA": "abcdef0123456789abcdef0123456789abcdef01", "CI_JOB_URL": "https://gitlab.example/octo/repo/-/jobs/4242"}
	if srv != nil {
		env["CI_API_V4_URL"] = srv.URL + "/api/v4"
	}
	for k, v := range o.vars {
		env[k] = v
	}
	project, code, log = gitlabRunWith(t, gitlabOptions{inputs: in, vars: env, commit: true, prepare: o.prepare})
	c, out := routeguardExit(t, project, "diff", "--base", "HEAD", "--fail-on-new", "error", "-o", "markdown", "examples/apps/routing/gateways")
	if c != 0 || !strings.HasPrefix(string(out), marker+"\n") {
		t.Fatalf("routeguard diff exits %d:\n%s", c, out)
	}
	return code, log, project, string(out)
}

// gitlabDiff is gitlabDiffWith for jobs that must succeed.
func gitlabDiff(t *testing.T, srv *httptest.Server, vars map[string]string) (code int, log, review string) {
	t.Helper()
	code, log, _, review = gitlabDiffWith(t, srv, glDiff{vars: vars})
	if code != 0 || !strings.Contains(log, review) {
		t.Fatalf("job exit %d (want 0: no error introduced), review in the log: %v\n%s", code, strings.Contains(log, review), log)
	}
	return code, log, review
}

// TestGitLabNoteCreatedThenUpdated: the first pipeline of a merge request
// asks whose the token is (GET /user) and creates the note, with the
// review as its body and the token in PRIVATE-TOKEN; the next one updates
// that note (no second one).
func TestGitLabNoteCreatedThenUpdated(t *testing.T) {
	t.Parallel()
	f := newThread(gitlabAPI)
	srv := f.serve(t)
	_, log, review := gitlabDiff(t, srv, nil)
	notes, reqs := f.snapshot()
	if len(notes) != 1 || notes[0].Body != review || notes[0].by() != glBot || count(reqs, http.MethodPost, glList) != 1 {
		t.Fatalf("after the first pipeline: notes %+v, requests %v, want one note by the token's user with the review\n%s", notes, reqs, log)
	}
	if count(reqs, http.MethodGet, "/api/v4/user") != 1 {
		t.Errorf("requests %v, want one GET /api/v4/user", reqs)
	}
	for _, q := range reqs {
		if q.auth != "glpat-test-token" {
			t.Errorf("%v: PRIVATE-TOKEN %q, want the token", q, q.auth)
		}
	}
	if strings.Contains(log, "routeguard: could not") {
		t.Errorf("complaints in the log:\n%s", log)
	}

	f.setBody(notes[0].ID, marker+"\nstale review")
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
	f := newThread(gitlabAPI)
	f.unrelated(100)
	id := f.addBy(glBot, marker+"\nstale review")
	f.unrelated(5)
	srv := f.serve(t)
	_, log, review := gitlabDiff(t, srv, nil)
	notes, reqs := f.snapshot()
	if got := strings.Join(pages(reqs, glList), ","); got != "1,2" {
		t.Errorf("pages read: %s, want 1,2 (%v)", got, reqs)
	}
	if o := withMarker(notes); len(o) != 1 || o[0].ID != id || o[0].Body != review || len(notes) != 106 {
		t.Errorf("routeguard's notes %+v of %d, want note %d updated\nrequests %v\n%s", o, len(notes), id, reqs, log)
	}
}

// TestGitLabNoteNotTakenOver: a note that starts with the marker but was
// written by another user (anyone can post one, first), or is a system
// note, is never updated: the review lands in a note of the token's own
// user, and the other stays as its author wrote it; the next pipeline
// updates the review's own note.
func TestGitLabNoteNotTakenOver(t *testing.T) {
	t.Parallel()
	const bait = marker + "\nno routing change"
	f := newThread(gitlabAPI)
	mallory := f.addBy(glMallory, bait)
	f.mu.Lock()
	system := f.appendLocked(glBot, bait).ID
	f.comments[len(f.comments)-1].System = true // GitLab's own note, not one anyone wrote
	f.mu.Unlock()
	f.unrelated(3)
	srv := f.serve(t)
	_, log, review := gitlabDiff(t, srv, nil)
	notes, reqs := f.snapshot()
	for _, id := range []int{mallory, system} {
		if f.body(id) != bait || count(reqs, http.MethodPut, glItem+strconv.Itoa(id)) != 0 {
			t.Errorf("note %d was changed: %q\nrequests %v", id, f.body(id), reqs)
		}
	}
	last := notes[len(notes)-1]
	if count(reqs, http.MethodPost, glList) != 1 || last.Body != review || last.by() != glBot {
		t.Fatalf("the review is not in a new note by the token's user: last %+v\nrequests %v\n%s", last, reqs, log)
	}
	f.forget()
	_, log, _ = gitlabDiff(t, srv, nil)
	_, reqs = f.snapshot()
	if count(reqs, http.MethodPut, glItem+strconv.Itoa(last.ID)) != 1 || len(writes(reqs)) != 1 || f.body(mallory) != bait {
		t.Errorf("second pipeline: requests %v, want one PUT of note %d\n%s", reqs, last.ID, log)
	}
}

// TestGitLabNoteNotPosted: what keeps the note from being posted for want
// of configuration (no merge request, no token, no jq) is said in the log
// and does not fail the job. A note that cannot be read, posted or
// updated (a 403) fails it: the review on the merge request, if any, would
// be stale. A listing that fails writes nothing.
func TestGitLabNoteNotPosted(t *testing.T) {
	t.Parallel()
	// A PATH with what the job needs, but neither jq nor apk.
	noJQ := t.TempDir()
	for _, tool := range []string{"uname", "mkdir", "mktemp", "curl", "awk", "sed", "env", "sha256sum", "cut", "tar", "gzip", "cat", "rm"} {
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
		code     int
		log      string
		requests bool
	}{
		{name: "not a merge request", vars: map[string]string{"CI_MERGE_REQUEST_IID": "", "CI_PIPELINE_SOURCE": "push"},
			log: "routeguard: not a merge request pipeline: the review is in the job log"},
		{name: "no token", vars: map[string]string{"ROUTEGUARD_GITLAB_TOKEN": ""},
			log: "routeguard: the review is not posted on the merge request: set a CI/CD variable ROUTEGUARD_GITLAB_TOKEN"},
		{name: "no jq", vars: map[string]string{"PATH": noJQ},
			log: "routeguard: the review is not posted on the merge request: that needs jq and curl"},
		{name: "create refused", fail: http.MethodPost, requests: true, code: 2,
			log: "routeguard: could not post the note (HTTP 403: Resource not accessible by integration; does ROUTEGUARD_GITLAB_TOKEN have the api scope?)"},
		{name: "update refused", fail: http.MethodPut, existing: true, requests: true, code: 2,
			log: "routeguard: could not update note 1000 (HTTP 403: Resource not accessible by integration; does ROUTEGUARD_GITLAB_TOKEN have the api scope?), nor mark it stale: it is stale"},
		{name: "listing refused", fail: http.MethodGet, existing: true, requests: true, code: 2,
			log: "routeguard: could not read the notes of merge request !7 (HTTP 403: Resource not accessible by integration), so the review is not posted: a review note from an earlier push, if there is one, is stale"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newThread(gitlabAPI)
			f.fail = map[string]int{tt.fail: http.StatusForbidden}
			if tt.existing {
				f.addBy(glBot, marker+"\nstale review")
			}
			srv := f.serve(t)
			code, log, _, review := gitlabDiffWith(t, srv, glDiff{vars: tt.vars})
			if code != tt.code || !strings.Contains(log, review) {
				t.Errorf("job exit %d, want %d; review in the log: %v\n%s", code, tt.code, strings.Contains(log, review), log)
			}
			if !strings.Contains(log, tt.log) {
				t.Errorf("log lacks %q:\n%s", tt.log, log)
			}
			notes, reqs := f.snapshot()
			if tt.requests != (len(reqs) > 0) {
				t.Errorf("requests %v", reqs)
			}
			if tt.fail == http.MethodGet && len(writes(reqs)) != 0 {
				t.Errorf("wrote after a failed listing: %v", reqs)
			}
			if len(notes) > 1 || (len(notes) == 1 && notes[0].Body != marker+"\nstale review") {
				t.Errorf("notes %+v changed", notes)
			}
		})
	}
}

// TestGitLabNoteMarkedStale: the API refuses the updated review (here a
// server whose limit, 1,000 characters, is below the review's: 400 is too
// long). The job fails, says so, and edits its own old note to a short
// line saying it is stale, with the commit and the job.
func TestGitLabNoteMarkedStale(t *testing.T) {
	t.Parallel()
	pad := filepath.Join(t.TempDir(), "pad.md")
	if err := os.WriteFile(pad, []byte(hostileLines(5000)), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newThread(gitlabAPI)
	f.maxBody = 1000
	id := f.addBy(glBot, marker+"\nno routing change")
	srv := f.serve(t)
	code, log, _, _ := gitlabDiffWith(t, srv, glDiff{release: serveWrappedRelease(t, markdownPadding(pad))})
	if code != 2 || !strings.Contains(log, "routeguard: could not update note 1000 (HTTP 400: note: is too long (maximum is 1000 characters)") ||
		!strings.Contains(log, "it is marked stale now") {
		t.Fatalf("job exit %d:\n%s", code, log)
	}
	want := marker + "\n**stale:** this routing review is out of date: routeguard could not update it for commit abcdef012345; see https://gitlab.example/octo/repo/-/jobs/4242.\n"
	if got := f.body(id); got != want {
		t.Errorf("note %d = %q, want %q", id, got, want)
	}
}

// TestGitLabNoteCapped: a review larger than a note may be (routeguard's
// output padded past 1.5 MB with hostile lines) is cut to GitLab's
// 1,000,000 characters at a line, with a line saying how much was left
// out; the job log has all of it.
func TestGitLabNoteCapped(t *testing.T) {
	t.Parallel()
	pad := filepath.Join(t.TempDir(), "pad.md")
	padding := hostileLines(1_500_000)
	if err := os.WriteFile(pad, []byte(padding), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newThread(gitlabAPI)
	srv := f.serve(t)
	code, log, _, review := gitlabDiffWith(t, srv, glDiff{release: serveWrappedRelease(t, markdownPadding(pad))})
	notes, reqs := f.snapshot()
	if code != 0 || len(notes) != 1 || !strings.Contains(log, review+padding) {
		t.Fatalf("job exit %d, notes %d, the whole review in the log: %v\nrequests %v", code, len(notes), strings.Contains(log, review+padding), reqs)
	}
	checkCapped(t, "note", notes[0].Body, review+padding, 1000000, "a GitLab note holds at most 1,000,000 characters")
	if !strings.HasPrefix(notes[0].Body, review) {
		t.Errorf("the note does not start with routeguard's own review")
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
		sub := strings.Fields(strings.ReplaceAll(command, "-", " "))
		_, want := routeguardExit(t, project, append(sub, "--base", "HEAD", "--fail-on-new", "error", "-o", "markdown", paths)...)
		if code != 0 || !strings.HasPrefix(string(want), marker+"\n") || !strings.Contains(string(want), paths) || !strings.Contains(log, string(want)) {
			t.Errorf("%s: exit %d, review:\n%s\nlog:\n%s", command, code, want, log)
		}
		// The same run wrote the head's findings for the merge request's
		// widgets: what --report gives on stdout.
		for file, format := range map[string]string{glCodeQuality: "gitlab", glJUnit: "junit"} {
			got, err := os.ReadFile(filepath.Join(project, file))
			_, report := routeguardExit(t, project, append(sub, "--base", "HEAD", "--report", format, paths)...)
			if err != nil || string(got) != string(report) || len(got) == 0 {
				t.Errorf("%s: %s (%v):\n%s\nwant:\n%s", command, file, err, got, report)
			}
		}
	}
}
