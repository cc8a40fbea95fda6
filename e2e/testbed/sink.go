package testbed

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// SlackSink is a STAND-IN for Slack (which cannot run here): a loopback HTTP
// server that answers Slack's Web API (chat.postMessage, chat.update) as
// Slack does and records every message it receives. The notifications
// controller's Slack service points at it with its apiURL option.
type SlackSink struct {
	URL string // base: the service's apiURL is URL + "/api/"

	mu       sync.Mutex
	messages []SlackMessage
	srv      *http.Server
}

// SlackMessage is one message the sink received.
type SlackMessage struct {
	Method      string // chat.postMessage, chat.update
	Channel     string
	Text        string
	Attachments string // JSON, as sent
	Blocks      string // JSON, as sent
	Received    time.Time
}

// StartSlackSink starts the sink on 127.0.0.1.
func StartSlackSink() (*SlackSink, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &SlackSink{URL: "http://" + l.Addr().String()}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/", s.serve)
	s.srv = &http.Server{Handler: mux}
	go func() { _ = s.srv.Serve(l) }()
	return s, nil
}

// Close stops the sink.
func (s *SlackSink) Close() error { return s.srv.Close() }

func (s *SlackSink) serve(w http.ResponseWriter, r *http.Request) {
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	body, _ := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	var form url.Values
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		var m map[string]any
		_ = json.Unmarshal(body, &m)
		form = url.Values{}
		for k, v := range m {
			switch v := v.(type) {
			case string:
				form.Set(k, v)
			default:
				b, _ := json.Marshal(v)
				form.Set(k, string(b))
			}
		}
	} else {
		form, _ = url.ParseQuery(string(body))
	}
	msg := SlackMessage{
		Method:      method,
		Channel:     form.Get("channel"),
		Text:        form.Get("text"),
		Attachments: form.Get("attachments"),
		Blocks:      form.Get("blocks"),
		Received:    time.Now(),
	}
	s.mu.Lock()
	s.messages = append(s.messages, msg)
	n := len(s.messages)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"ok":true,"channel":%q,"ts":"%d.000100","message":{"ts":"%d.000100"}}`, msg.Channel, 1700000000+n, 1700000000+n)
}

// Messages returns what the sink received so far, in order.
func (s *SlackSink) Messages() []SlackMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SlackMessage(nil), s.messages...)
}

// Matching returns the messages whose text or attachments contain every
// one of the given strings.
func (s *SlackSink) Matching(subs ...string) []SlackMessage {
	var out []SlackMessage
	for _, m := range s.Messages() {
		all := m.Text + "\n" + m.Attachments + "\n" + m.Blocks
		ok := true
		for _, sub := range subs {
			if !strings.Contains(all, sub) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, m)
		}
	}
	return out
}
