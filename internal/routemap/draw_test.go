package routemap

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
	"testing"
)

func TestGraphDiffStatuses(t *testing.T) {
	base := &Map{Entries: []Entry{
		{Parent: "P", Host: "h", Match: "m", Route: "R", Backends: []Backend{{"a", 90}, {"b", 10}}},
		{Parent: "P", Host: "h", Match: "m", Route: "Old", Backends: []Backend{{"c", 1}}},
	}}
	head := &Map{Entries: []Entry{
		{Parent: "P", Host: "h", Match: "m", Route: "R", Backends: []Backend{{"a", 50}, {"b", 50}, {"d", 0}}},
	}}
	g := NewGraph(base, head)
	status := map[string]string{}
	for _, n := range g.Nodes {
		status[n.Label] = n.Status
	}
	if status["Old"] != Removed || status["c"] != Removed || status["d"] != Added || status["R"] != "" || status["a"] != "" {
		t.Errorf("node statuses %v", status)
	}
	var changed []string
	for _, e := range g.Edges {
		if e.Status == Changed {
			changed = append(changed, e.Old+" -> "+e.Label)
		}
	}
	if strings.Join(changed, "; ") != "w 90 -> w 50; w 10 -> w 50" {
		t.Errorf("changed edges %q", changed)
	}
	if c := g.Changed(); len(c.Nodes) != 7 || len(c.Edges) != 5 {
		t.Errorf("changed part: %d nodes %d edges, want 7 and 5 (P->R unchanged is left out)", len(c.Nodes), len(c.Edges))
	}
}

func TestDrawingsEscapeRepositoryText(t *testing.T) {
	evil := "x\"]\n  click n0 \"javascript:alert(1)\"\n```<script>&"
	m := &Map{Entries: []Entry{{Parent: evil, Host: evil, Match: "m", Route: "R", Backends: []Backend{{evil, 1}}}}}
	g := NewGraph(m, m)
	mm := Mermaid(g)
	if esc := mermaidText(evil); strings.ContainsAny(esc, "\"[]`<>&\n|") {
		t.Errorf("mermaid label %q holds syntax", esc)
	}
	if strings.Contains(mm, "```") || strings.Contains(mm, "<script>") {
		t.Errorf("mermaid holds a fence or a tag:\n%s", mm)
	}
	if strings.Count(mm, "\n") != 3+len(g.Nodes)+len(g.Edges) {
		t.Errorf("a label broke a line:\n%s", mm)
	}
	var svg bytes.Buffer
	if err := SVG(&svg, g, evil); err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(svg.Bytes(), new(struct{})); err != nil {
		t.Errorf("svg is not XML: %v", err)
	}
	if strings.Contains(svg.String(), "<script>") {
		t.Errorf("svg holds a script tag")
	}
}

// TestMermaidEmptyLabels: Mermaid's parser refuses an empty quoted label
// (`[""]`, `|""|`; found by the mermaid package in release/ci), and an
// empty host or name is repository input like any other.
func TestMermaidEmptyLabels(t *testing.T) {
	m := &Map{Entries: []Entry{{Parent: "", Host: "", Match: "m", Route: "R", Backends: []Backend{{"b", 1}}}}}
	mm := Mermaid(NewGraph(&Map{}, m))
	if strings.Contains(mm, `""`) {
		t.Errorf("an empty quoted label:\n%s", mm)
	}
	if !strings.Contains(mm, `[/" "/]:::added`) || !strings.Contains(mm, "n0 --> n1\n") {
		t.Errorf("the empty parent is not a blank box with a bare arrow to its route:\n%s", mm)
	}
}

// TestMermaidEdgeLimit: Mermaid's parser refuses more than 500 arrows; the
// flowchart keeps the first 500 and says how many it left out.
func TestMermaidEdgeLimit(t *testing.T) {
	m := &Map{}
	for i := range 300 {
		m.Entries = append(m.Entries, Entry{Parent: "P", Host: fmt.Sprintf("h%d", i), Match: "m",
			Route: fmt.Sprintf("R%d", i), Backends: []Backend{{fmt.Sprintf("b%d", i), 1}}})
	}
	g := NewGraph(m, m)
	mm := Mermaid(g)
	if n := strings.Count(mm, "-->"); n != MermaidMaxEdges || len(g.Edges) != 600 {
		t.Errorf("%d arrows of %d written, want %d", n, len(g.Edges), MermaidMaxEdges)
	}
	if !strings.Contains(mm, `more["100 more arrows: Mermaid draws at most 500; routeguard map -o svg draws them all"]`) {
		t.Errorf("no note of the arrows left out:\n%.300s", mm[len(mm)-300:])
	}
}
