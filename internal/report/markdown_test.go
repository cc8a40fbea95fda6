package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
)

func TestMarkdown(t *testing.T) {
	fs := []analysis.Finding{
		{Code: "RG1101", Severity: analysis.SeverityError, Message: "backendRef names <img src=x> @octocat https://evil.example",
			Object: analysis.ObjectRef{Kind: "HTTPRoute", Namespace: "shop", Name: "web|`x`"}, Source: manifest.Source{File: "apps/route.yaml", Line: 12}},
		{Code: "RG4002", Severity: analysis.SeverityWarning, Message: "no tag",
			Object: analysis.ObjectRef{Kind: "Deployment", Namespace: "shop", Name: "web"}, Source: manifest.Source{File: "apps/d.yaml", Line: 1}},
	}
	var b bytes.Buffer
	w, _ := New("markdown", &b, Options{})
	if err := WriteAll(w, fs); err != nil {
		t.Fatal(err)
	}
	want := "### routeguard: 1 error, 1 warning, 0 infos\n" +
		"\n#### Errors (1)\n\n| code | where | object | finding |\n|---|---|---|---|\n" +
		"| RG1101 | apps/route.yaml:12 | HTTPRoute shop/web&#124;&#96;x&#96; | backendRef names &#60;img src=x&#62; &#64;&#8203;octocat https:&#8203;//evil.example |\n" +
		"\n#### Warnings (1)\n\n| code | where | object | finding |\n|---|---|---|---|\n" +
		"| RG4002 | apps/d.yaml:1 | Deployment shop/web | no tag |\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestMarkdownCap: 3,000 findings with 30,000-character names stay
// under MaxMarkdown, every table counted, the long names cut with a count.
func TestMarkdownCap(t *testing.T) {
	var b bytes.Buffer
	w, _ := New("markdown", &b, Options{})
	long := strings.Repeat("n", 30000)
	for i := range 3000 {
		sev := []analysis.Severity{analysis.SeverityError, analysis.SeverityWarning, analysis.SeverityInfo}[i%3]
		w.Write(analysis.Finding{Code: "RG1101", Severity: sev, Message: long, Object: analysis.ObjectRef{Kind: "Service", Namespace: "ns", Name: fmt.Sprint(long, i)},
			Source: manifest.Source{File: long, Line: i}})
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if len(md) > MaxMarkdown {
		t.Fatalf("%d bytes, over %d", len(md), MaxMarkdown)
	}
	for _, want := range []string{"#### Errors (1,000)", "#### Warnings (1,000)", "#### Infos (1,000)", "more rows", "characters)", "Shortened to stay under"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%.2000s", want, md)
		}
	}
}
