package ci

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The diff mode posts its review as one comment per pull request (GitHub)
// or one note per merge request (GitLab), found again by the marker it
// starts with. These tests run the real scripts (action.yml's steps,
// templates/routeguard.yml's job) against loopback fakes of the two REST
// APIs, which keep the comments and record every request.

const marker = "<!-- routeguard-diff -->"

type fakeComment struct {
	ID   int    `json:"id"`
	Body string `json:"body"`
}

type fakeRequest struct {
	method, path, query string
	auth                string // Authorization (GitHub) or PRIVATE-TOKEN (GitLab)
	body                string
}

func (r fakeRequest) String() string { return r.method + " " + r.path + "?" + r.query }

// fakeThread is the comments of one pull request or merge request.
type fakeThread struct {
	mu       sync.Mutex
	comments []fakeComment
	requests []fakeRequest
	fail     map[string]int // method -> HTTP status to answer with
}

func (f *fakeThread) add(body string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := 1000 + len(f.comments)
	f.comments = append(f.comments, fakeComment{ID: id, Body: body})
	return id
}

// unrelated adds n comments that are not routeguard's, one of them
// mentioning the marker in its middle (a reviewer quoting it).
func (f *fakeThread) unrelated(n int) {
	for i := range n {
		body := fmt.Sprintf("LGTM %d", i)
		if i == n/2 {
			body = "Why does the " + marker + " comment say that?"
		}
		f.add(body)
	}
}

func (f *fakeThread) snapshot() ([]fakeComment, []fakeRequest) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeComment(nil), f.comments...), append([]fakeRequest(nil), f.requests...)
}

// serve answers list (GET list), create (POST list) and update
// (updateMethod item/{id}) as both APIs do, with pages of per_page
// comments, oldest first.
func (f *fakeThread) serve(t *testing.T, list, item, updateMethod, authHeader string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		defer f.mu.Unlock()
		f.requests = append(f.requests, fakeRequest{method: r.Method, path: r.URL.Path, query: r.URL.RawQuery,
			auth: r.Header.Get(authHeader), body: string(data)})
		w.Header().Set("Content-Type", "application/json")
		if code := f.fail[r.Method]; code != 0 {
			w.WriteHeader(code)
			io.WriteString(w, `{"message":"Resource not accessible by integration"}`)
			return
		}
		var in struct {
			Body *string `json:"body"`
		}
		if r.Method != http.MethodGet && r.Header.Get("Content-Type") != "application/json" {
			// Both APIs read a form body otherwise (GitLab: no body given).
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"message":"want Content-Type: application/json, got %q"}`, r.Header.Get("Content-Type"))
			return
		}
		switch {
		case r.URL.Path == list && r.Method == http.MethodGet:
			per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
			page, _ := strconv.Atoi(r.URL.Query().Get("page"))
			if per <= 0 {
				per = 20 // both APIs' default
			}
			page = max(page, 1)
			lo, hi := min((page-1)*per, len(f.comments)), min(page*per, len(f.comments))
			json.NewEncoder(w).Encode(append([]fakeComment{}, f.comments[lo:hi]...))
		case r.URL.Path == list && r.Method == http.MethodPost:
			if err := json.Unmarshal(data, &in); err != nil || in.Body == nil {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"message":"Problems parsing JSON"}`)
				return
			}
			c := fakeComment{ID: 1000 + len(f.comments), Body: *in.Body}
			f.comments = append(f.comments, c)
			w.WriteHeader(http.StatusCreated)
			json.NewEncoder(w).Encode(c)
		case strings.HasPrefix(r.URL.Path, item) && r.Method == updateMethod:
			id, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, item))
			if err != nil || id < 1000 || id >= 1000+len(f.comments) {
				w.WriteHeader(http.StatusNotFound)
				return
			}
			if err := json.Unmarshal(data, &in); err != nil || in.Body == nil {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			f.comments[id-1000].Body = *in.Body
			json.NewEncoder(w).Encode(f.comments[id-1000])
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"message":"Not Found"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// count returns how many requests had method and path.
func count(reqs []fakeRequest, method, path string) int {
	n := 0
	for _, r := range reqs {
		if r.method == method && r.path == path {
			n++
		}
	}
	return n
}

// ours returns the comments that start with the marker.
func ours(comments []fakeComment) []fakeComment {
	var out []fakeComment
	for _, c := range comments {
		if strings.HasPrefix(c.Body, marker) {
			out = append(out, c)
		}
	}
	return out
}

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

// pages returns the page numbers of the list requests, in order.
func pages(reqs []fakeRequest, list string) []string {
	var out []string
	for _, r := range reqs {
		if r.method == http.MethodGet && r.path == list {
			q, _ := parseQuery(r.query)
			out = append(out, q["page"])
		}
	}
	return out
}

func parseQuery(q string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range strings.Split(q, "&") {
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out, nil
}

// githubRun runs the action in diff mode as on pull request 7 of
// octo/repo, against the fake API srv, and returns the run and the
// comment file's content.
func githubRun(t *testing.T, srv *httptest.Server) (*actionRun, string) {
	t.Helper()
	needTools(t)
	event := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(event, []byte(`{"action":"synchronize","number":7,"pull_request":{"number":7,"head":{"repo":{"full_name":"octo/repo"}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	in := map[string]string{"version": "v" + releaseVersion, "download-url": serveRelease(t, false),
		"command": "diff", "base": "HEAD", "paths": "examples/apps/routing/gateways", "github-token": "ghs_test-token"}
	r := runActionEnv(t, in, map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": event,
		"GITHUB_API_URL": srv.URL, "GITHUB_REPOSITORY": "octo/repo"})
	if r.outputs["run"]["exit-code"] != "0" || r.failed != "" || !r.ran["comment"] {
		t.Fatalf("exit-code %q, failed step %q, comment step ran %v:\n%s", r.outputs["run"]["exit-code"], r.failed, r.ran["comment"], r.log)
	}
	data, err := os.ReadFile(r.outputs["run"]["comment-file"])
	if err != nil || !strings.HasPrefix(string(data), marker+"\n") {
		t.Fatalf("comment-file: %v\n%s", err, data)
	}
	return r, string(data)
}

const (
	ghList = "/repos/octo/repo/issues/7/comments"
	ghItem = "/repos/octo/repo/issues/comments/"
)

// TestActionCommentCreatedThenUpdated: the first run on a pull request
// creates the comment, with the review as its body and the token in the
// Authorization header; the next run updates that comment (no second one).
func TestActionCommentCreatedThenUpdated(t *testing.T) {
	t.Parallel()
	f := &fakeThread{}
	srv := f.serve(t, ghList, ghItem, http.MethodPatch, "Authorization")
	r, review := githubRun(t, srv)
	comments, reqs := f.snapshot()
	if len(comments) != 1 || comments[0].Body != review {
		t.Fatalf("after the first run: comments %+v, want one with the review\nrequests %v\n%s", comments, reqs, r.log)
	}
	if count(reqs, http.MethodPost, ghList) != 1 {
		t.Errorf("requests %v, want one POST %s", reqs, ghList)
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
	f.mu.Lock()
	f.comments[0].Body = marker + "\nstale review"
	f.requests = nil
	f.mu.Unlock()
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
	f := &fakeThread{}
	f.unrelated(100)
	id := f.add(marker + "\nstale review")
	f.unrelated(5)
	srv := f.serve(t, ghList, ghItem, http.MethodPatch, "Authorization")
	r, review := githubRun(t, srv)
	comments, reqs := f.snapshot()
	if got := strings.Join(pages(reqs, ghList), ","); got != "1,2" {
		t.Errorf("pages read: %s, want 1,2 (%v)", got, reqs)
	}
	if o := ours(comments); len(o) != 1 || o[0].ID != id || o[0].Body != review || len(comments) != 106 {
		t.Errorf("routeguard's comments %+v of %d, want comment %d updated\nrequests %v\n%s", o, len(comments), id, reqs, r.log)
	}
	if count(reqs, http.MethodPost, ghList) != 0 {
		t.Errorf("a second comment was created: %v", reqs)
	}

	f = &fakeThread{}
	f.unrelated(200)
	srv = f.serve(t, ghList, ghItem, http.MethodPatch, "Authorization")
	_, review = githubRun(t, srv)
	comments, reqs = f.snapshot()
	if got := strings.Join(pages(reqs, ghList), ","); got != "1,2,3" {
		t.Errorf("pages read: %s, want 1,2,3", got)
	}
	if o := ours(comments); len(o) != 1 || o[0].Body != review || comments[len(comments)-1].Body != review {
		t.Errorf("routeguard's comments %+v, want one new comment", o)
	}
}

// TestActionCommentRefused: a token that cannot write (a fork's) gets 403:
// a warning, and the step does not fail; the review is in the summary.
// A listing that fails creates nothing (it could be a second comment).
func TestActionCommentRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		method, warning string
		existing        bool
	}{
		{method: http.MethodPost, warning: "::warning title=routeguard::could not comment on pull request 7"},
		{method: http.MethodPatch, warning: "::warning title=routeguard::could not update comment 1000", existing: true},
		{method: http.MethodGet, warning: "::warning title=routeguard::could not read the comments of pull request 7", existing: true},
	} {
		t.Run(tt.method, func(t *testing.T) {
			t.Parallel()
			f := &fakeThread{fail: map[string]int{tt.method: http.StatusForbidden}}
			if tt.existing {
				f.add(marker + "\nstale review")
			}
			srv := f.serve(t, ghList, ghItem, http.MethodPatch, "Authorization")
			r, _ := githubRun(t, srv)
			if !strings.Contains(r.log, tt.warning) {
				t.Errorf("log lacks %q:\n%s", tt.warning, r.log)
			}
			if !strings.Contains(r.summary, "### routeguard: routing review") {
				t.Errorf("summary lacks the review:\n%s", r.summary)
			}
			comments, reqs := f.snapshot()
			if tt.method == http.MethodGet && (count(reqs, http.MethodPost, ghList) != 0 || count(reqs, http.MethodPatch, ghItem+"1000") != 0) {
				t.Errorf("wrote after a failed listing: %v", reqs)
			}
			if len(comments) > 1 || (len(comments) == 1 && comments[0].Body != marker+"\nstale review") {
				t.Errorf("comments %+v changed after %d", comments, http.StatusForbidden)
			}
		})
	}
}
