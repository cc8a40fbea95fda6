package routediff

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/routemap"
	"github.com/routeguard/routeguard/internal/sharedroutes"
)

// hostileNames are what a pull request can put in names, hosts and
// messages: markup, mentions, links, code fences, the comment's own
// structure, workflow commands, and the words the comment uses.
var hostileNames = []string{
	"<img src=x onerror=alert(1)>", "@octocat and @org/team", "https://evil.example/x www.evil.example mail@evil.example",
	"```\n</details>\n```mermaid", "`` ` ``", "| a | b |", "not compared", "#### Routes (1)", "<!-- routeguard-diff -->",
	"::error title=forged::x", "##[error]legacy", "\x1b[2J\rrewritten", "&amp; &#64; &lt;", "ünïcödé 🦀", "#123 owner/repo#9",
	"[link](javascript:alert(1))", "*bold* _it_ ~~s~~ \\", "\u202egnp.exe", strings.Repeat("x", 30000),
}

// hostileResult is a diff holding n of every kind of row, each named
// name (with an index, so that rows differ).
func hostileResult(name string, n int) *Result {
	base, head := &routemap.Map{}, &routemap.Map{}
	for i := range n {
		id := fmt.Sprintf("%s-%d", name, i)
		head.Entries = append(head.Entries, routemap.Entry{Parent: "Gateway " + id, Host: id, Match: "PathPrefix /" + id, Route: "HTTPRoute " + id,
			Backends: []routemap.Backend{{Name: "Service " + id, Weight: 1}}})
		base.Attachments = append(base.Attachments, routemap.Attachment{Route: "HTTPRoute " + id, Parent: "Gateway " + id, State: routemap.Detached, Reason: id})
		head.Parents = append(head.Parents, routemap.Parent{Name: "Gateway " + id, Detail: id})
		head.TLS = append(head.TLS, routemap.TLSHost{Parent: "Gateway " + id, Host: id, Certificate: "Secret " + id})
		head.Grants = append(head.Grants, routemap.Grant{Grant: "ReferenceGrant " + id, From: id, To: id})
	}
	res := &Result{Base: Rev{Name: "main " + name}, Head: Rev{Name: "feature/" + name}, Paths: []string{name},
		BaseMap: base, HeadMap: head, Routing: routemap.Compare(base, head)}
	for i := range n {
		id := fmt.Sprintf("%s-%d", name, i)
		f := analysis.Finding{Code: "RG1101", Severity: analysis.SeverityError, Message: "message " + id,
			Object: analysis.ObjectRef{APIVersion: "v1", Kind: "Service", Namespace: id, Name: id}, Source: manifest.Source{File: id, Line: i + 1}}
		res.Intro = append(res.Intro, f)
		res.Fixed = append(res.Fixed, f)
		res.Objects = append(res.Objects, KindChange{Kind: id, Added: i + 1})
		res.Removed = append(res.Removed, f)
		res.NotCompared = append(res.NotCompared, "RG0009 Application argocd/"+id+" at both revisions, not compared: "+id)
		res.NotBuilt = append(res.NotBuilt, NotBuilt{Revision: "head", Unbuilt: notice.Unbuilt{What: "Application argocd/" + id,
			Where: id + ".yaml:1", Why: "fails to build: " + id, RoutingFiles: []string{id + "/route.yaml", id + "/gateway.yaml"}}})
		res.Shared = append(res.Shared, sharedroutes.Item{Change: routemap.Added, Route: "HTTPRoute " + id,
			RouteOwner: &pipeline.Owner{Kind: "path", Name: id}, Gateway: "Gateway " + id, GatewayOwner: pipeline.Owner{Kind: "path", Name: id},
			Files: []sharedroutes.File{{Role: "route", Path: id + ".yaml"}}})
	}
	res.RoutingObjects = RoutingObjects{Base: n, Head: 3 * n}
	return res
}

// checkMarkdown asserts what every comment must be: within the budget,
// every section present or counted, its structure intact whatever the
// names (balanced <details>, whole code fences, table rows with their
// columns), and nothing from the repository that renders as markup, a
// mention, a link or a workflow command.
func checkMarkdown(t *testing.T, res *Result, md string) {
	t.Helper()
	if len(md) > MaxMarkdown {
		t.Fatalf("comment is %d bytes, over %d", len(md), MaxMarkdown)
	}
	if !strings.HasPrefix(md, Marker+"\n") || strings.Count(md, Marker) != 1 {
		t.Fatalf("the marker is not once at the start:\n%.500s", md)
	}
	for _, s := range res.sections() {
		if len(s.rows) > 0 && !strings.Contains(md, fmt.Sprintf("\n#### %s (%s)\n", s.title, count(len(s.rows)))) {
			t.Errorf("section %s (%d rows) is neither shown nor counted", s.title, len(s.rows))
		}
	}
	if !strings.Contains(md, fmt.Sprintf("routing objects checked: %d at base, %d at head\n", res.RoutingObjects.Base, res.RoutingObjects.Head)) {
		t.Errorf("the routing objects checked are not said")
	}
	if n := len(res.NotCompared); n > 0 && !strings.Contains(md, fmt.Sprintf("> ⚠️ %s part(s) could be built at neither revision", count(n))) {
		t.Errorf("the %d parts not compared are not counted", n)
	}
	if o, c := strings.Count(md, "<details"), strings.Count(md, "</details>"); o != c || o > 1 {
		t.Errorf("%d <details> and %d </details>", o, c)
	}
	var fences int
	inFence := false
	lines := strings.Split(md, "\n")
	header := ""
	for i, line := range lines {
		if strings.HasPrefix(line, "```") {
			fences++
			inFence = !inFence
			continue
		}
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "::") || strings.Contains(line, "##[") {
			t.Errorf("line %q could be read as a workflow command", line)
		}
		if inFence {
			continue
		}
		switch {
		case strings.HasPrefix(line, "|") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "|---"):
			header = line
		case strings.HasPrefix(line, "|") && !strings.HasPrefix(line, "|---"):
			if cols := strings.Count(line, "|"); cols != strings.Count(header, "|") {
				t.Errorf("row %.200q has %d pipes, its header %d", line, cols, strings.Count(header, "|"))
			}
		}
		rest := ourTags.ReplaceAllString(strings.TrimPrefix(line, "> "), "")
		for _, bad := range []string{"<", ">", "@", "://", "www.", "`", "\x1b", "\r"} {
			if bad == "`" && strings.Contains(line, "routeguard ") { // our own hints: `routeguard diff -o json`
				continue
			}
			if strings.Contains(rest, bad) {
				t.Errorf("line %.300q holds %q outside markup of ours", line, bad)
			}
		}
	}
	if fences%2 != 0 {
		t.Errorf("%d code fence lines: one is broken", fences)
	}
}

var ourTags = regexp.MustCompile(`<!-- routeguard-diff -->|</?code>|<details open>|</details>|</?summary>|→`)

func count(n int) string { return commas(n) }

func commas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestMarkdownCapHostile: the shapes that broke the cap (10 Applications
// named with 30,000 characters gave a 751,293-character comment; names
// holding "not compared" 501,662) and every hostile name, few and many.
func TestMarkdownCapHostile(t *testing.T) {
	for _, name := range hostileNames {
		for _, n := range []int{1, 10, 600} {
			res := hostileResult(name, n)
			var b bytes.Buffer
			if err := res.WriteMarkdown(&b); err != nil {
				t.Fatalf("%.40q × %d: %v", name, n, err)
			}
			checkMarkdown(t, res, b.String())
		}
	}
	// 30,000-character names are cut with a count of the rest.
	res := hostileResult(strings.Repeat("a", 30000), 10)
	var b bytes.Buffer
	if err := res.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "characters)") || !strings.Contains(b.String(), "not compared (stderr of the run has them all)") &&
		!strings.Contains(b.String(), "RG0009 Application argocd/aaaa") {
		t.Errorf("long names are not cut with a count:\n%.3000s", b.String())
	}
}

// The comment shortens the least important first: every table has a
// place in mdOrder, and with 600 rows of every kind, what could not be
// compared keeps at least as many rows as the findings introduced, they
// as many as the routes, and so on down to the other objects changed.
func TestMarkdownPriority(t *testing.T) {
	res := hostileResult("app", 600)
	prio := mdPriority(res.sections())
	if len(prio) != len(res.sections())+2 {
		t.Fatalf("priority %v does not place all %d tables, the list and the map", prio, len(res.sections()))
	}
	seen := map[int]bool{}
	for _, i := range prio {
		if seen[i] {
			t.Fatalf("priority %v lists %d twice", prio, i)
		}
		seen[i] = true
	}
	strict := false
	for _, n := range []int{20, 40, 80, 160, 600} {
		res := hostileResult("app", n)
		var b bytes.Buffer
		if err := res.WriteMarkdown(&b); err != nil {
			t.Fatal(err)
		}
		md := b.String()
		rows := func(title string) int {
			i := strings.Index(md, "\n#### "+title+" (")
			if i < 0 {
				t.Fatalf("%d rows: no table %q", n, title)
			}
			part := md[i+1:]
			if j := strings.Index(part, "\n#### "); j >= 0 {
				part = part[:j]
			}
			return strings.Count(part, "\n| ")
		}
		for i := 1; i < len(mdOrder); i++ {
			if a, b := rows(mdOrder[i-1]), rows(mdOrder[i]); a < b {
				t.Errorf("%d rows each: %q shows %d, %q %d: the more important table was shortened first", n, mdOrder[i-1], a, mdOrder[i], b)
			}
		}
		unbuilt, other := rows(notBuiltTitle), rows("Other objects changed")
		strict = strict || unbuilt > other
	}
	if !strict {
		t.Error("no size shortened the other objects more than what was not built")
	}
}

// FuzzMarkdown: any name, any number of rows: the comment keeps its
// budget and its structure.
func FuzzMarkdown(f *testing.F) {
	for i, name := range hostileNames {
		f.Add(name, []int{1, 7, 250}[i%3])
	}
	f.Fuzz(func(t *testing.T, name string, n int) {
		n = min(max(n, 0)%800, 800)
		res := hostileResult(name, n)
		var b bytes.Buffer
		if err := res.WriteMarkdown(&b); err != nil {
			t.Fatal(err)
		}
		checkMarkdown(t, res, b.String())
	})
}

// BenchmarkMarkdown5000 writes the comment of 5,000 changed rows per
// section with 300-character names (shortened to the budget).
func BenchmarkMarkdown5000(b *testing.B) {
	res := hostileResult(strings.Repeat("n", 300), 5000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var out bytes.Buffer
		if err := res.WriteMarkdown(&out); err != nil {
			b.Fatal(err)
		}
	}
}
