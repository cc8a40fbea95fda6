package routediff

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/routemap"
)

// TestMarkdownStaysUnderGitHubsLimit: 5,000 added routes would make a
// comment of ~2 MB; the report keeps the first rows of the table, says how
// many it left out, and stays under MaxMarkdown.
func TestMarkdownStaysUnderGitHubsLimit(t *testing.T) {
	head := &routemap.Map{}
	for i := range 5000 {
		head.Entries = append(head.Entries, routemap.Entry{Parent: "Gateway edge/public listener https",
			Host: fmt.Sprintf("app%04d.example.com", i), Match: "PathPrefix /", Route: fmt.Sprintf("HTTPRoute app%04d/web", i),
			Backends: []routemap.Backend{{Name: fmt.Sprintf("Service app%04d/web:80", i), Weight: 1}}})
	}
	base := &routemap.Map{}
	res := &Result{Base: Rev{Name: "main"}, Head: Rev{Name: "work tree"}, Paths: []string{"."},
		BaseMap: base, HeadMap: head, Routing: routemap.Compare(base, head)}
	var b bytes.Buffer
	if err := res.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if len(md) > MaxMarkdown {
		t.Errorf("markdown is %d bytes, over %d", len(md), MaxMarkdown)
	}
	if !strings.Contains(md, "more rows") || !strings.Contains(md, "#### Routes (5,000)") || !strings.Contains(md, "app0000.example.com") {
		t.Errorf("markdown does not summarize the tail:\n%.2000s", md)
	}
	if strings.Contains(md, "```mermaid") {
		t.Errorf("a 10,000-box map was put in the comment")
	}
	// A small change keeps every row and the map.
	small := &Result{Base: res.Base, Head: res.Head, Paths: res.Paths, BaseMap: base,
		HeadMap: &routemap.Map{Entries: head.Entries[:3]}}
	small.Routing = routemap.Compare(base, small.HeadMap)
	b.Reset()
	if err := small.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "more rows") || !strings.Contains(b.String(), "```mermaid") {
		t.Errorf("small report cut or without map:\n%s", b.String())
	}
}
