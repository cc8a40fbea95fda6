package ci

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// Loopback fakes of the parts of GitHub's and GitLab's APIs the diff
// comment uses: a thread of comments (pull request) or notes (merge
// request) with their authors, the token's own account (GET /user, and
// GitHub's GraphQL viewer), and the body limits the real APIs enforce.

const marker = "<!-- routeguard-diff -->"

// fakeUser is an account: GitHub's comment `user` (login, id, type) or
// GitLab's note `author` (id, username).
type fakeUser struct {
	ID       int    `json:"id"`
	Login    string `json:"login,omitempty"`
	Username string `json:"username,omitempty"`
	Type     string `json:"type,omitempty"`
}

// The accounts of the tests. ghApp is what GITHUB_TOKEN comments as (it
// cannot read GET /user; GraphQL's viewer names it); ghImpostor is a user
// whose login is the app's without "[bot]".
var (
	ghApp      = fakeUser{ID: 41898282, Login: "github-actions[bot]", Type: "Bot"}
	ghPATUser  = fakeUser{ID: 5, Login: "octobot", Type: "User"}
	ghReviewer = fakeUser{ID: 100, Login: "reviewer", Type: "User"}
	ghMallory  = fakeUser{ID: 666, Login: "mallory", Type: "User"}
	ghImpostor = fakeUser{ID: 667, Login: "github-actions", Type: "User"}
	glBot      = fakeUser{ID: 77, Username: "project_42_bot_4f2a"}
	glReviewer = fakeUser{ID: 100, Username: "reviewer"}
	glMallory  = fakeUser{ID: 666, Username: "mallory"}
)

type fakeComment struct {
	ID     int       `json:"id"`
	Body   string    `json:"body"`
	User   *fakeUser `json:"user,omitempty"`   // GitHub
	Author *fakeUser `json:"author,omitempty"` // GitLab
	System bool      `json:"system"`           // GitLab
}

func (c fakeComment) by() fakeUser {
	if c.User != nil {
		return *c.User
	}
	if c.Author != nil {
		return *c.Author
	}
	return fakeUser{}
}

type fakeRequest struct {
	method, path, query string
	auth                string // Authorization (GitHub) or PRIVATE-TOKEN (GitLab)
	body                string
}

func (r fakeRequest) String() string { return r.method + " " + r.path + "?" + r.query }

// fakeAPI is one platform's shape.
type fakeAPI struct {
	github       bool
	list, item   string // the thread's list path, and its items' path prefix
	update       string // PATCH (GitHub) or PUT (GitLab)
	authHeader   string
	user         string // GET: the token's account
	graphql      string // POST: GitHub's GraphQL endpoint ("" on GitLab)
	maxBody      int    // the API's limit, in characters
	tooLong      int    // the status a longer body gets
	accounts     map[string]fakeUser
	installation map[string]bool // tokens GET /user refuses (GitHub App installation tokens)
}

var (
	githubAPI = fakeAPI{github: true, list: ghList, item: ghItem, update: http.MethodPatch, authHeader: "Authorization",
		user: "/user", graphql: "/graphql", maxBody: 65536, tooLong: http.StatusUnprocessableEntity,
		accounts:     map[string]fakeUser{"Bearer ghs_test-token": ghApp, "Bearer ghp_test-pat": ghPATUser},
		installation: map[string]bool{"Bearer ghs_test-token": true}}
	gitlabAPI = fakeAPI{list: glList, item: glItem, update: http.MethodPut, authHeader: "PRIVATE-TOKEN",
		user: "/api/v4/user", maxBody: 1000000, tooLong: http.StatusBadRequest,
		accounts: map[string]fakeUser{"glpat-test-token": glBot}}
)

const (
	ghList = "/repos/octo/repo/issues/7/comments"
	ghItem = "/repos/octo/repo/issues/comments/"
	glList = "/api/v4/projects/42/merge_requests/7/notes"
	glItem = glList + "/"
)

// fakeThread is the comments of one pull request or merge request.
type fakeThread struct {
	api      fakeAPI
	mu       sync.Mutex
	comments []fakeComment
	requests []fakeRequest
	fail     map[string]int // method -> HTTP status for the thread's endpoints
	maxBody  int            // when set, a stricter limit than the API's
}

func newThread(api fakeAPI) *fakeThread { return &fakeThread{api: api} }

// addBy adds a comment by u and returns its id.
func (f *fakeThread) addBy(u fakeUser, body string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.appendLocked(u, body).ID
}

func (f *fakeThread) appendLocked(u fakeUser, body string) fakeComment {
	c := fakeComment{ID: 1000 + len(f.comments), Body: body}
	if f.api.github {
		c.User = &u
	} else {
		c.Author = &u
	}
	f.comments = append(f.comments, c)
	return c
}

// unrelated adds n comments by a reviewer, one of them mentioning the
// marker in its middle (quoting it).
func (f *fakeThread) unrelated(n int) {
	u := ghReviewer
	if !f.api.github {
		u = glReviewer
	}
	for i := range n {
		body := fmt.Sprintf("LGTM %d", i)
		if i == n/2 {
			body = "Why does the " + marker + " comment say that?"
		}
		f.addBy(u, body)
	}
}

func (f *fakeThread) snapshot() ([]fakeComment, []fakeRequest) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeComment(nil), f.comments...), append([]fakeRequest(nil), f.requests...)
}

func (f *fakeThread) body(id int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.comments[id-1000].Body
}

// forget drops the requests recorded so far.
func (f *fakeThread) forget() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = nil
}

func (f *fakeThread) setBody(id int, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.comments[id-1000].Body = body
	f.requests = nil
}

// serve answers the account (GET user, GitHub's GraphQL viewer), list
// (GET list), create (POST list) and update (PATCH/PUT item/{id}) as the
// API does, with pages of per_page comments, oldest first, and refuses a
// body over its limit.
func (f *fakeThread) serve(t *testing.T) *httptest.Server {
	a := f.api
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		defer f.mu.Unlock()
		auth := r.Header.Get(a.authHeader)
		f.requests = append(f.requests, fakeRequest{method: r.Method, path: r.URL.Path, query: r.URL.RawQuery, auth: auth, body: string(data)})
		w.Header().Set("Content-Type", "application/json")
		account, known := a.accounts[auth]
		if !known {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"message":"Bad credentials"}`)
			return
		}
		switch {
		case r.URL.Path == a.user && r.Method == http.MethodGet:
			if a.installation[auth] {
				w.WriteHeader(http.StatusForbidden)
				io.WriteString(w, `{"message":"Resource not accessible by integration","status":"403"}`)
				return
			}
			json.NewEncoder(w).Encode(account)
			return
		case a.graphql != "" && r.URL.Path == a.graphql && r.Method == http.MethodPost:
			var q struct {
				Query string `json:"query"`
			}
			if json.Unmarshal(data, &q) != nil || !strings.Contains(q.Query, "viewer") || !strings.Contains(q.Query, "login") {
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"message":"Problems parsing JSON"}`)
				return
			}
			fmt.Fprintf(w, `{"data":{"viewer":{"login":%q}}}`, account.Login)
			return
		}
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
		if r.Method != http.MethodGet {
			if err := json.Unmarshal(data, &in); err != nil || in.Body == nil {
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"message":"Problems parsing JSON"}`)
				return
			}
			limit := a.maxBody
			if f.maxBody > 0 {
				limit = f.maxBody
			}
			if n := utf8.RuneCountInString(*in.Body); n > limit {
				w.WriteHeader(a.tooLong)
				if a.github {
					fmt.Fprintf(w, `{"message":"Validation Failed","errors":[{"resource":"IssueComment","code":"unprocessable","field":"data","message":"Body is too long (maximum is %d characters)"}]}`, limit)
				} else {
					fmt.Fprintf(w, `{"message":{"note":["is too long (maximum is %d characters)"]}}`, limit)
				}
				return
			}
		}
		switch {
		case r.URL.Path == a.list && r.Method == http.MethodGet:
			per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
			page, _ := strconv.Atoi(r.URL.Query().Get("page"))
			if per <= 0 {
				per = 20 // both APIs' default
			}
			page = max(page, 1)
			lo, hi := min((page-1)*per, len(f.comments)), min(page*per, len(f.comments))
			json.NewEncoder(w).Encode(append([]fakeComment{}, f.comments[lo:hi]...))
		case r.URL.Path == a.list && r.Method == http.MethodPost:
			c := f.appendLocked(account, *in.Body)
			w.WriteHeader(http.StatusCreated)
			json.NewEncoder(w).Encode(c)
		case strings.HasPrefix(r.URL.Path, a.item) && r.Method == a.update:
			id, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, a.item))
			if err != nil || id < 1000 || id >= 1000+len(f.comments) {
				w.WriteHeader(http.StatusNotFound)
				io.WriteString(w, `{"message":"Not Found"}`)
				return
			}
			// Both APIs let a token that can write the thread edit anyone's
			// comment there: that is what makes a takeover possible.
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

// writes returns the requests that change the thread.
func writes(reqs []fakeRequest) []fakeRequest {
	var out []fakeRequest
	for _, r := range reqs {
		if r.method == http.MethodPost && !strings.HasSuffix(r.path, "/graphql") || r.method == http.MethodPatch || r.method == http.MethodPut {
			out = append(out, r)
		}
	}
	return out
}

// withMarker returns the comments that start with the marker.
func withMarker(comments []fakeComment) []fakeComment {
	var out []fakeComment
	for _, c := range comments {
		if strings.HasPrefix(c.Body, marker) {
			out = append(out, c)
		}
	}
	return out
}

// pages returns the page numbers of the list requests, in order.
func pages(reqs []fakeRequest, list string) []string {
	var out []string
	for _, r := range reqs {
		if r.method == http.MethodGet && r.path == list {
			for _, kv := range strings.Split(r.query, "&") {
				if k, v, _ := strings.Cut(kv, "="); k == "page" {
					out = append(out, v)
				}
			}
		}
	}
	return out
}
