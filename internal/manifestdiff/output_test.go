package manifestdiff

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile is a large review: many apps, objects with long lines, lines of
// backticks and markup, mentions and control characters.
func hostile(t *testing.T, apps, objs, lines, width int) *Result {
	t.Helper()
	var base, head []Group
	for a := range apps {
		var b, h strings.Builder
		for o := range objs {
			for i, w := range []*strings.Builder{&b, &h} {
				fmt.Fprintf(w, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d, namespace: n%d}\ndata:\n", o, a)
				for l := range lines {
					fmt.Fprintf(w, "  k%d: \"````` @team </details> \\x1b[2J <img src=x> %d %d %s\"\n", l, i, l, strings.Repeat("x", width))
				}
			}
		}
		base = append(base, group(t, "Application", fmt.Sprintf("argocd/app-%03d", a), b.String()))
		head = append(head, group(t, "Application", fmt.Sprintf("argocd/app-%03d", a), h.String()))
	}
	return compare(t, Input{Base: base, Head: head}, Options{})
}

// TestMarkdownCaps: a review far over the budget fits it, every cut says
// how much it cut, and nothing from the repository is markup.
func TestMarkdownCaps(t *testing.T) {
	for _, tc := range []struct {
		name              string
		apps, objs, lines int
		want              []string
	}{
		{"few apps, long diffs", 3, 4, 300, []string{"more diff lines of this object", "This review was shortened"}},
		{"many apps", 120, 2, 3, []string{"… and 70 more apps (140 objects) changed", "left out to keep this comment under the size limit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := hostile(t, tc.apps, tc.objs, tc.lines, 3000)
			md, err := res.Markdown("<!-- routeguard-diff -->\n", 60000, "`routeguard diff -o json` has it all")
			if err != nil {
				t.Fatal(err)
			}
			if len(md) > 60000 || !utf8.ValidString(md) {
				t.Fatalf("%d bytes, over the budget (or not UTF-8)", len(md))
			}
			for _, w := range tc.want {
				if !strings.Contains(md, w) {
					t.Errorf("no %q in the comment", w)
				}
			}
			if strings.Contains(md, "\x1b") {
				t.Errorf("a control character reached the comment")
			}
			// Every code block is opened by a fence longer than any run of
			// backticks inside it, so the five in the data cannot close it.
			for _, block := range strings.Split(md, "\n``````diff\n")[1:] {
				end := strings.Index(block, "\n``````\n")
				if end < 0 {
					t.Fatalf("a code block is not closed by its fence")
				}
				if strings.Contains(block[:end], "``````") {
					t.Errorf("a code block holds its own fence")
				}
			}
			if strings.Contains(md, "\n```diff\n") {
				t.Errorf("a block with five backticks inside has a short fence")
			}
			// Outside code blocks, repository text is escaped.
			outside := md
			for {
				i := strings.Index(outside, "``````diff\n")
				if i < 0 {
					break
				}
				j := strings.Index(outside[i+11:], "\n``````\n")
				outside = outside[:i] + outside[i+11+j+8:]
			}
			if strings.Contains(outside, "<img") || strings.Contains(outside, "@team") {
				t.Errorf("repository text unescaped outside the code blocks")
			}
		})
	}
}

// TestTextCap: the text output stops at maxTextLines diff lines and
// counts what it cut; long lines are cut with a count.
func TestTextCap(t *testing.T) {
	res := hostile(t, 2, 30, 400, 10) // 2 × 30 × 800 diff lines
	out := text(t, res)
	if !strings.Contains(out, "more diff lines of") || !strings.Contains(out, "-o json has them all") {
		t.Errorf("the text output does not say what it cut")
	}
	if n := strings.Count(out, "\n+  k") + strings.Count(out, "\n-  k"); n > maxTextLines {
		t.Errorf("%d diff lines, over the cap of %d", n, maxTextLines)
	}
	if long := text(t, hostile(t, 1, 1, 2, 2100)); !strings.Contains(long, "…(+") || strings.Contains(out+long, "\x1b") {
		t.Errorf("long lines not cut, or a control character written")
	}
}

// TestObjectTooLarge: an object over the line cap is not diffed; the
// review lists it with its size and a notice says so.
func TestObjectTooLarge(t *testing.T) {
	res := hostile(t, 1, 1, 50, 10)
	if res.Apps[0].Objects[0].OmittedLines != 0 {
		t.Fatalf("a small object was omitted")
	}
	var b, h strings.Builder
	for i, w := range []*strings.Builder{&b, &h} {
		fmt.Fprintf(w, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n")
		for l := range 300 {
			fmt.Fprintf(w, "  k%d: v%d\n", l, i)
		}
	}
	res = compare(t, Input{Base: []Group{group(t, "path", "p", b.String())}, Head: []Group{group(t, "path", "p", h.String())}}, Options{MaxObjectLines: 200})
	o := res.Apps[0].Objects[0]
	if o.OmittedLines != 610 || len(o.Hunks) != 0 {
		t.Errorf("omitted %d lines with %d hunks, want 610 and none", o.OmittedLines, len(o.Hunks))
	}
	if len(res.Notices) != 1 || !strings.Contains(res.Notices[0].Text, "diff of 610 lines omitted, too large") {
		t.Errorf("notices %+v", res.Notices)
	}
	if !strings.Contains(text(t, res), "diff of 610 lines omitted, too large") {
		t.Errorf("the text output does not list the omitted object")
	}
}

// TestManyPointersCapped: every app's ignoreDifferences that removed
// something is named in JSON, but the summary names a few and counts the
// rest, so the comment's head stays small.
func TestManyPointersCapped(t *testing.T) {
	var base, head []Group
	ignore := map[App][]Pointer{}
	for a := range 300 {
		app := App{Kind: "Application", Name: fmt.Sprintf("argocd/app-%03d", a)}
		y := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: n%d}\ndata: {k: %%s, skip: %d}\n", a, a)
		base = append(base, Group{App: app, Objects: objects(t, fmt.Sprintf(y, "1"))})
		head = append(head, Group{App: app, Objects: objects(t, fmt.Sprintf(y, "2"))})
		ignore[app] = []Pointer{{Kind: "ConfigMap", Path: "/data/skip", From: app.String() + " ignoreDifferences"}}
	}
	res := compare(t, Input{Base: base, Head: head, Ignore: ignore}, Options{})
	if len(res.Filters) != 300 {
		t.Fatalf("%d filters, want 300", len(res.Filters))
	}
	md, err := res.Markdown("<!-- m -->\n", 60000, "the JSON has it all")
	if err != nil || len(md) > 60000 {
		t.Fatalf("%v (%d bytes)", err, len(md))
	}
	if !strings.Contains(md, "… and 292 more (-o json lists them)") || strings.Contains(md, "app-299 ignoreDifferences") {
		t.Errorf("the filters are not capped in the comment")
	}
}
