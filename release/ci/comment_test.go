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

// The diff mode posts its review as one comment per pull request (GitHub)
// or one note per merge request (GitLab), found again by the marker it
// starts with and by its author, the token's own account. These tests run
// the real scripts (action.yml's steps, templates/routeguard.yml's job)
// against the loopback fakes of the two APIs (fakeapi_test.go), which keep
// the comments with their authors and record every request.

// needTools: the comment scripts need jq and curl (GitHub's runners have
// them; the GitLab job installs them with apk).
func needTools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"jq", "curl", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the comment tests run the scripts with %s: install it (apt-get install -y jq curl git): %v", tool, err)
		}
	}
}

// ghDiff says how githubDiff runs the action.
type ghDiff struct {
	token   string // the github-token input; default ghs_test-token (GITHUB_TOKEN, the app's bot)
	fork    bool   // the pull request comes from a fork
	release string // download-url; default the real release
	runner  map[string]string
}

// githubDiff runs the action in diff mode as on pull request 7 of
// octo/repo (head commit abcdef0123456789), against the fake API srv.
func githubDiff(t *testing.T, srv *httptest.Server, o ghDiff) *actionRun {
	t.Helper()
	needTools(t)
	head := "octo/repo"
	if o.fork {
		head = "mallory/repo"
	}
	event := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(event, []byte(`{"action":"synchronize","number":7,"pull_request":{"number":7,"head":{"sha":"abcdef0123456789abcdef0123456789abcdef01","repo":{"full_name":"`+head+`"}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if o.token == "" {
		o.token = "ghs_test-token"
	}
	if o.release == "" {
		o.release = serveRelease(t, false)
	}
	in := map[string]string{"version": "v" + releaseVersion, "download-url": o.release,
		"command": "diff", "base": "HEAD", "paths": "examples/apps/routing/gateways", "github-token": o.token}
	runner := map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": event,
		"GITHUB_API_URL": srv.URL, "GITHUB_GRAPHQL_URL": srv.URL + "/graphql", "GITHUB_REPOSITORY": "octo/repo",
		"GITHUB_SERVER_URL": "https://github.example", "GITHUB_RUN_ID": "4242"}
	for k, v := range o.runner {
		runner[k] = v
	}
	return runActionEnv(t, in, runner)
}

// githubRun is githubDiff with the defaults, for runs that must succeed;
// it returns the comment file's content too.
func githubRun(t *testing.T, srv *httptest.Server) (*actionRun, string) {
	t.Helper()
	r := githubDiff(t, srv, ghDiff{})
	return r, mustPost(t, r)
}

// mustPost checks that the run and the comment step succeeded and returns
// the comment file.
func mustPost(t *testing.T, r *actionRun) string {
	t.Helper()
	if r.outputs["run"]["exit-code"] != "0" || r.failed != "" || !r.ran["comment"] {
		t.Fatalf("exit-code %q, failed step %q, comment step ran %v:\n%s", r.outputs["run"]["exit-code"], r.failed, r.ran["comment"], r.log)
	}
	data, err := os.ReadFile(r.outputs["run"]["comment-file"])
	if err != nil || !strings.HasPrefix(string(data), marker+"\n") {
		t.Fatalf("comment-file: %v\n%s", err, data)
	}
	return string(data)
}

// TestActionCommentCreatedThenUpdated: the first run on a pull request
// asks whose the token is (GET /user, which GITHUB_TOKEN cannot read, then
// GraphQL's viewer) and creates the comment, with the review as its body
// and the token in the Authorization header; the next run updates that
// comment (no second one).
func TestActionCommentCreatedThenUpdated(t *testing.T) {
	t.Parallel()
	f := newThread(githubAPI)
	srv := f.serve(t)
	r, review := githubRun(t, srv)
	comments, reqs := f.snapshot()
	if len(comments) != 1 || comments[0].Body != review || comments[0].by() != ghApp {
		t.Fatalf("after the first run: comments %+v, want one by the app with the review\nrequests %v\n%s", comments, reqs, r.log)
	}
	if count(reqs, http.MethodPost, ghList) != 1 || count(reqs, http.MethodGet, "/user") != 1 || count(reqs, http.MethodPost, "/graphql") != 1 {
		t.Errorf("requests %v, want GET /user, POST /graphql and one POST %s", reqs, ghList)
	}
	for _, q := range reqs {
		if q.auth != "Bearer ghs_test-token" {
			t.Errorf("%v: Authorization %q, want the token", q, q.auth)
		}
	}
	if strings.Contains(r.log, "::warning") {
		t.Errorf("warnings:\n%s", r.log)
	}

	// A stale body, as a previous push left it: the next run replaces it.
	f.setBody(comments[0].ID, marker+"\nstale review")
	r, review = githubRun(t, srv)
	comments, reqs = f.snapshot()
	if len(comments) != 1 || comments[0].Body != review {
		t.Fatalf("after the second run: comments %+v, want the one comment updated\nrequests %v\n%s", comments, reqs, r.log)
	}
	if count(reqs, http.MethodPost, ghList) != 0 || count(reqs, http.MethodPatch, ghItem+strconv.Itoa(comments[0].ID)) != 1 {
		t.Errorf("requests %v, want one PATCH and no POST", reqs)
	}
}

// TestActionCommentPaging: 100 other comments (a full page) come before
// routeguard's; the step reads the second page and updates it. Without one
// of its own, it reads every page before creating one.
func TestActionCommentPaging(t *testing.T) {
	t.Parallel()
	f := newThread(githubAPI)
	f.unrelated(100)
	id := f.addBy(ghApp, marker+"\nstale review")
	f.unrelated(5)
	srv := f.serve(t)
	r, review := githubRun(t, srv)
	comments, reqs := f.snapshot()
	if got := strings.Join(pages(reqs, ghList), ","); got != "1,2" {
		t.Errorf("pages read: %s, want 1,2 (%v)", got, reqs)
	}
	if o := withMarker(comments); len(o) != 1 || o[0].ID != id || o[0].Body != review || len(comments) != 106 {
		t.Errorf("routeguard's comments %+v of %d, want comment %d updated\nrequests %v\n%s", o, len(comments), id, reqs, r.log)
	}
	if count(reqs, http.MethodPost, ghList) != 0 {
		t.Errorf("a second comment was created: %v", reqs)
	}

	f = newThread(githubAPI)
	f.unrelated(200)
	srv = f.serve(t)
	_, review = githubRun(t, srv)
	comments, reqs = f.snapshot()
	if got := strings.Join(pages(reqs, ghList), ","); got != "1,2,3" {
		t.Errorf("pages read: %s, want 1,2,3", got)
	}
	if o := withMarker(comments); len(o) != 1 || o[0].Body != review || comments[len(comments)-1].Body != review {
		t.Errorf("routeguard's comments %+v, want one new comment", o)
	}
}

// TestActionCommentNotTakenOver: a comment that starts with the marker but
// was written by another account (anyone can post one, first) is never
// updated: the review lands in a comment of the token's own account, and
// the other stays as its author wrote it. That holds for GITHUB_TOKEN (the
// app's bot; a user named like the bot without "[bot]" is another account)
// and for a personal token (its user, not the app's bot).
func TestActionCommentNotTakenOver(t *testing.T) {
	t.Parallel()
	const bait = marker + "\nno routing change"
	for _, tt := range []struct {
		name, token string
		others      []fakeUser // each posts a marker comment first
		ours        fakeUser
	}{
		{name: "GITHUB_TOKEN", token: "ghs_test-token", others: []fakeUser{ghMallory, ghImpostor}, ours: ghApp},
		{name: "personal token", token: "ghp_test-pat", others: []fakeUser{ghMallory, ghApp}, ours: ghPATUser},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newThread(githubAPI)
			var baits []int
			for _, u := range tt.others {
				baits = append(baits, f.addBy(u, bait))
			}
			f.unrelated(3)
			srv := f.serve(t)
			r := githubDiff(t, srv, ghDiff{token: tt.token})
			review := mustPost(t, r)
			comments, reqs := f.snapshot()
			for _, id := range baits {
				if f.body(id) != bait {
					t.Errorf("comment %d of another account was changed: %q", id, f.body(id))
				}
				if n := count(reqs, http.MethodPatch, ghItem+strconv.Itoa(id)); n != 0 {
					t.Errorf("comment %d of another account was patched %d times", id, n)
				}
			}
			last := comments[len(comments)-1]
			if count(reqs, http.MethodPost, ghList) != 1 || last.Body != review || last.by() != tt.ours {
				t.Fatalf("the review is not in a new comment by %+v: last %+v\nrequests %v\n%s", tt.ours, last, reqs, r.log)
			}
			// The next push updates the review's own comment, still not the bait.
			f.forget()
			r = githubDiff(t, srv, ghDiff{token: tt.token})
			mustPost(t, r)
			comments, reqs = f.snapshot()
			if len(withMarker(comments)) != len(baits)+1 || count(reqs, http.MethodPatch, ghItem+strconv.Itoa(last.ID)) != 1 || len(writes(reqs)) != 1 {
				t.Errorf("second push: requests %v, want one PATCH of comment %d\n%s", reqs, last.ID, r.log)
			}
			for _, id := range baits {
				if f.body(id) != bait {
					t.Errorf("comment %d of another account was changed on the second push", id)
				}
			}
		})
	}
}

// TestActionCommentIdentityUnknown: when neither GET /user nor the
// GraphQL viewer says whose the token is, no comment is updated (it could
// be anyone's): a warning, and the review goes into a new one.
func TestActionCommentIdentityUnknown(t *testing.T) {
	t.Parallel()
	api := githubAPI
	api.graphql = "/graphql-gone" // the viewer query gets a 404
	f := newThread(api)
	id := f.addBy(ghApp, marker+"\nstale review")
	srv := f.serve(t)
	r := githubDiff(t, srv, ghDiff{})
	review := mustPost(t, r)
	comments, reqs := f.snapshot()
	if f.body(id) != marker+"\nstale review" || len(comments) != 2 || comments[1].Body != review {
		t.Errorf("comments %+v, want the review in a new comment\nrequests %v", comments, reqs)
	}
	if !strings.Contains(r.log, "::warning title=routeguard::could not tell which account the token belongs to") {
		t.Errorf("no warning:\n%s", r.log)
	}
}

// TestActionCommentRefused: a token that cannot write on a fork's pull
// request (403) gets a warning and the step does not fail; the review is
// in the summary. On a pull request of the repository itself a refusal is
// a failure: the review on the pull request would be stale. A listing that
// fails creates nothing (it could be a second comment).
func TestActionCommentRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		method, log string
		fork        bool
		existing    bool
	}{
		{method: http.MethodPost, fork: true, log: "::warning title=routeguard::could not comment on pull request 7 (HTTP 403"},
		{method: http.MethodPatch, fork: true, existing: true, log: "::warning title=routeguard::could not update comment 1000 (HTTP 403"},
		{method: http.MethodGet, fork: true, existing: true, log: "::warning title=routeguard::could not read the comments of pull request 7"},
		{method: http.MethodPost, log: "::error title=routeguard::could not comment on pull request 7 (HTTP 403"},
		{method: http.MethodPatch, existing: true, log: "::error title=routeguard::could not update review comment 1000 (HTTP 403"},
		{method: http.MethodGet, existing: true, log: "::error title=routeguard::could not read the comments of pull request 7 (HTTP 403"},
	} {
		t.Run(tt.method+" fork="+strconv.FormatBool(tt.fork), func(t *testing.T) {
			t.Parallel()
			f := newThread(githubAPI)
			f.fail = map[string]int{tt.method: http.StatusForbidden}
			if tt.existing {
				f.addBy(ghApp, marker+"\nstale review")
			}
			srv := f.serve(t)
			r := githubDiff(t, srv, ghDiff{fork: tt.fork})
			if !strings.Contains(r.log, tt.log) {
				t.Errorf("log lacks %q:\n%s", tt.log, r.log)
			}
			if want := map[bool]string{true: "", false: "comment"}[tt.fork]; r.failed != want {
				t.Errorf("failed step %q, want %q\n%s", r.failed, want, r.log)
			}
			if !strings.Contains(r.summary, "### routeguard: routing review") {
				t.Errorf("summary lacks the review:\n%s", r.summary)
			}
			if !tt.fork && tt.method == http.MethodPatch && !strings.Contains(r.log, "nor mark it stale: it is stale") {
				t.Errorf("the log does not say the review is stale:\n%s", r.log)
			}
			comments, reqs := f.snapshot()
			if tt.method == http.MethodGet && len(writes(reqs)) != 0 {
				t.Errorf("wrote after a failed listing: %v", reqs)
			}
			if len(comments) > 1 || (len(comments) == 1 && comments[0].Body != marker+"\nstale review") {
				t.Errorf("comments %+v changed after %d", comments, http.StatusForbidden)
			}
		})
	}
}

// TestActionCommentMarkedStale: the API refuses the updated review (here
// a server whose limit, 1,000 characters, is below the review's: 422 Body
// is too long). The step fails, says so, and edits its own old comment to
// a short line saying it is stale, with the commit and the run.
func TestActionCommentMarkedStale(t *testing.T) {
	t.Parallel()
	pad := filepath.Join(t.TempDir(), "pad.md")
	if err := os.WriteFile(pad, []byte(hostileLines(5000)), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newThread(githubAPI)
	f.maxBody = 1000
	id := f.addBy(ghApp, marker+"\nno routing change")
	srv := f.serve(t)
	r := githubDiff(t, srv, ghDiff{release: serveWrappedRelease(t, markdownPadding(pad))})
	if r.failed != "comment" || !strings.Contains(r.log, "::error title=routeguard::could not update review comment 1000 (HTTP 422: Validation Failed: Body is too long (maximum is 1000 characters)): it is marked stale now") {
		t.Fatalf("failed step %q:\n%s", r.failed, r.log)
	}
	want := marker + "\n**stale:** this routing review is out of date: routeguard could not update it for commit abcdef012345; see https://github.example/octo/repo/actions/runs/4242.\n"
	if got := f.body(id); got != want {
		t.Errorf("comment %d = %q, want %q", id, got, want)
	}
	if !strings.Contains(r.summary, "**routeguard:** could not update review comment 1000") || !strings.Contains(r.summary, "### routeguard: routing review") {
		t.Errorf("the summary does not have the review and say the comment is stale:\n%s", r.summary)
	}
}

// TestActionCommentCapped: a review larger than a comment may be (here
// routeguard's output padded past 1.5 MB with hostile lines) is cut to
// GitHub's 65,536 characters at a line, with a line saying how much was
// left out; the job summary keeps more of it, under its 1 MiB.
func TestActionCommentCapped(t *testing.T) {
	t.Parallel()
	pad := filepath.Join(t.TempDir(), "pad.md")
	if err := os.WriteFile(pad, []byte(hostileLines(1_500_000)), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newThread(githubAPI)
	srv := f.serve(t)
	r := githubDiff(t, srv, ghDiff{release: serveWrappedRelease(t, markdownPadding(pad))})
	mustPost(t, r)
	comments, reqs := f.snapshot()
	if len(comments) != 1 {
		t.Fatalf("comments %d, requests %v\n%s", len(comments), reqs, r.log)
	}
	// routeguard's whole output, as the run step kept it.
	outputs, _ := filepath.Glob(filepath.Join(r.runnerTemp, "routeguard-run-*", "routeguard-diff.md"))
	if len(outputs) != 1 {
		t.Fatalf("routeguard's output: %v", outputs)
	}
	full, err := os.ReadFile(outputs[0])
	if err != nil || !strings.HasSuffix(string(full), hostileLines(1_500_000)) {
		t.Fatalf("routeguard's output is not the padded review: %v", err)
	}
	checkCapped(t, "comment", comments[0].Body, string(full), 65536, "a GitHub comment holds at most 65,536 characters")
	checkCapped(t, "summary", r.summary, string(full), 1<<20, "a job summary holds at most 1 MiB")
}
