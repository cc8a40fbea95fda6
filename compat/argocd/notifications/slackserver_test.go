package notifications

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// slackPost is one chat.postMessage call as the fake Slack API received it.
type slackPost struct {
	Channel     string
	Text        string
	ThreadTS    string
	Auth        string
	FormToken   string
	Raw         string // the whole form, for "<no value>" checks
	Attachments []map[string]any
	Blocks      []map[string]any
	TS          string // the timestamp the fake answered with
}

// hookPost is one call of the Slack incoming webhook.
type hookPost struct {
	Path        string
	ContentType string
	Raw         string
	Body        map[string]any
}

// fakeSlack stands in for Slack's Web API (/api/chat.postMessage) and for an
// incoming webhook (/hooks/...), on loopback, recording what it receives.
type fakeSlack struct {
	srv   *httptest.Server
	mu    sync.Mutex
	posts []slackPost
	hooks []hookPost
}

func newFakeSlack(t testing.TB) *fakeSlack {
	t.Helper()
	f := &fakeSlack{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeSlack) apiURL() string  { return f.srv.URL + "/api/" }
func (f *fakeSlack) hookURL() string { return f.srv.URL + "/hooks/T0000/B0000/routeguard" }

func (f *fakeSlack) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/api/chat.postMessage":
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		p := slackPost{
			Channel:   r.PostForm.Get("channel"),
			Text:      r.PostForm.Get("text"),
			ThreadTS:  r.PostForm.Get("thread_ts"),
			Auth:      r.Header.Get("Authorization"),
			FormToken: r.PostForm.Get("token"),
			Raw:       r.PostForm.Encode(),
		}
		if a := r.PostForm.Get("attachments"); a != "" {
			if err := json.Unmarshal([]byte(a), &p.Attachments); err != nil {
				http.Error(w, "attachments: "+err.Error(), http.StatusBadRequest)
				return
			}
		}
		if b := r.PostForm.Get("blocks"); b != "" {
			if err := json.Unmarshal([]byte(b), &p.Blocks); err != nil {
				http.Error(w, "blocks: "+err.Error(), http.StatusBadRequest)
				return
			}
		}
		f.mu.Lock()
		p.TS = fmt.Sprintf("1700000000.%06d", len(f.posts)+1)
		f.posts = append(f.posts, p)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"ok":true,"channel":"C%s","ts":%q}`, strings.ToUpper(p.Channel), p.TS)
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/hooks/"):
		raw, _ := io.ReadAll(r.Body)
		h := hookPost{Path: r.URL.Path, ContentType: r.Header.Get("Content-Type"), Raw: string(raw)}
		if err := json.Unmarshal(raw, &h.Body); err != nil {
			http.Error(w, "invalid_payload", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.hooks = append(f.hooks, h)
		f.mu.Unlock()
		io.WriteString(w, "ok")
	default:
		http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
	}
}

func (f *fakeSlack) takePosts() []slackPost {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.posts
	f.posts = nil
	return p
}

func (f *fakeSlack) takeHooks() []hookPost {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := f.hooks
	f.hooks = nil
	return h
}

// unescapeSlack reverses Slack's escaping of its three control characters.
func unescapeSlack(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
}

// str reads a string at a path of nested JSON maps and arrays ("fields.0.value").
func str(t testing.TB, v any, path ...any) string {
	t.Helper()
	cur := v
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				t.Fatalf("at %v: %T is not an object", path, cur)
			}
			cur = m[k]
		case int:
			a, ok := cur.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("at %v: no element %d in %T", path, k, cur)
			}
			cur = a[k]
		}
	}
	s, ok := cur.(string)
	if !ok {
		t.Fatalf("at %v: %#v is not a string", path, cur)
	}
	return s
}
