package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
)

func TestGitHub(t *testing.T) {
	got := render(t, "github", Options{}, sample)
	want := "::error file=apps/shop/route.yaml,line=12,title=RG1101 backendRef names a missing Service::HTTPRoute shop/web: backendRef names Service shop/web-v2, which does not exist\n" +
		"::warning file=apps/shop/web.yaml,line=1,title=RG4002 " + code(t, "RG4002") + "::Deployment shop/web: container \"web\" runs image \"nginx:latest\" <&>\n" +
		"::notice file=apps/shop/route.yaml,line=30,title=IST0101::VirtualService shop/web: Referenced host not found\n"
	want = strings.Replace(want, "backendRef names a missing Service", code(t, "RG1101"), 1)
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func code(t *testing.T, id string) string {
	t.Helper()
	c, ok := analysis.LookupCode(id)
	if !ok {
		t.Fatalf("no code %s", id)
	}
	return strings.NewReplacer(":", "%3A", ",", "%2C").Replace(c.Title)
}

// TestGitHubHostile: repository text cannot start a workflow command of its
// own (a newline, a carriage return), end a property early (':' ','), or
// hide in control characters; what the runner decodes is the text itself.
func TestGitHubHostile(t *testing.T) {
	msg := "x\n::error file=README.md::forged\r::add-mask::y %0A 100% \x1b[2J"
	fs := []analysis.Finding{{Code: "RG1101", Severity: analysis.SeverityError, Message: msg,
		Object: analysis.ObjectRef{Kind: "HTTPRoute", Namespace: "a,b", Name: "c:d"},
		Source: manifest.Source{File: "apps/x,line=1::y.yaml", Line: 4}}}
	out := render(t, "github", Options{}, fs)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "::error file=apps/x%2Cline=1%3A%3Ay.yaml,line=4,title=") {
		t.Fatalf("one line, its file property escaped; got %q", out)
	}
	data := lines[0][strings.Index(lines[0], "::HTTPRoute")+2:]
	decoded := strings.NewReplacer("%0A", "\n", "%0D", "\r", "%25", "%").Replace(data)
	if want := "HTTPRoute a,b/c:d: " + strings.Replace(msg, "\x1b", `\x1b`, 1); decoded != want {
		t.Errorf("the runner would decode\n%q\nwant\n%q", decoded, want)
	}
}

// TestGitHubPastWhatGitHubShows: errors come first, and past 10 of a level
// a notice gives the totals.
func TestGitHubPastWhatGitHubShows(t *testing.T) {
	var fs []analysis.Finding
	for i := range 12 {
		fs = append(fs, analysis.Finding{Code: "RG4002", Severity: analysis.SeverityWarning, Message: fmt.Sprint("w", i), Source: manifest.Source{File: "a.yaml", Line: i + 1}})
	}
	fs = append(fs, analysis.Finding{Code: "RG1101", Severity: analysis.SeverityError, Message: "e", Source: manifest.Source{File: "z.yaml", Line: 1}})
	lines := strings.Split(strings.TrimSuffix(render(t, "github", Options{}, fs), "\n"), "\n")
	if len(lines) != 14 || !strings.HasPrefix(lines[0], "::error ") || !strings.HasPrefix(lines[1], "::warning file=a.yaml,line=1,") {
		t.Fatalf("order: %q", lines)
	}
	if lines[13] != "::notice title=routeguard::1 errors, 12 warnings and 0 infos in all; GitHub shows 10 annotations of each level per step, errors first: the job log and the report list every finding" {
		t.Errorf("last line %q", lines[13])
	}
	if out := render(t, "github", Options{}, fs[:10]); strings.Contains(out, "in all") {
		t.Errorf("a notice for 10 warnings:\n%s", out)
	}
}
