package report

import (
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
	"unicode"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
)

// hostileFinding carries control characters where a repository puts them:
// an object name with an ANSI sequence and a carriage return, a message with
// an OSC 8 hyperlink and a C1 CSI, a file name with an escape.
var hostileFinding = analysis.Finding{Code: "RG1101", Severity: analysis.SeverityError,
	Message: "backendRef names \x1b]8;;https://evil.example\x07web\x1b]8;;\x07 \u009b2J\x7f, which does not exist",
	Object:  analysis.ObjectRef{APIVersion: "gateway.networking.k8s.io/v1", Kind: "HTTPRoute", Namespace: "shop", Name: "web\x1b[2K\rok"},
	Source:  manifest.Source{File: "apps/\x1b[31mshop/route.yaml", Line: 3}}

// noControl fails when a string decoded from a report holds a control
// character other than a newline or a tab.
func noControl(t *testing.T, format, field, s string) {
	t.Helper()
	if i := strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }); i >= 0 {
		t.Errorf("%s: %s carries a raw control character at %d: %q", format, field, i, s)
	}
}

// The machine-read reports are shown by viewers (code scanning, the merge
// request widget, a test report page): decoded, their text carries no raw
// control character from the repository, and says it escaped.
func TestReportsEscapeControlCharacters(t *testing.T) {
	var sarif struct {
		Runs []struct {
			Results []struct {
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
					}
					LogicalLocations []struct{ FullyQualifiedName string }
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(render(t, "sarif", Options{}, []analysis.Finding{hostileFinding})), &sarif); err != nil {
		t.Fatal(err)
	}
	res := sarif.Runs[0].Results[0]
	noControl(t, "sarif", "message", res.Message.Text)
	noControl(t, "sarif", "uri", res.Locations[0].PhysicalLocation.ArtifactLocation.URI)
	noControl(t, "sarif", "logical name", res.Locations[0].LogicalLocations[0].FullyQualifiedName)
	if !strings.Contains(res.Message.Text, `web\x1b[2K\rok`) || !strings.Contains(res.Message.Text, `\u009b2J\x7f`) {
		t.Errorf("sarif message does not show the escapes: %q", res.Message.Text)
	}
	if got := res.Locations[0].PhysicalLocation.ArtifactLocation.URI; got != "apps/%1B[31mshop/route.yaml" {
		t.Errorf("sarif uri = %q, want the escape percent-encoded", got)
	}

	var gitlab []gitlabIssue
	if err := json.Unmarshal([]byte(render(t, "gitlab", Options{}, []analysis.Finding{hostileFinding})), &gitlab); err != nil {
		t.Fatal(err)
	}
	noControl(t, "gitlab", "description", gitlab[0].Description)
	noControl(t, "gitlab", "path", gitlab[0].Location.Path)

	var junit struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(render(t, "junit", Options{}, []analysis.Finding{hostileFinding})), &junit); err != nil {
		t.Fatal(err)
	}
	c := junit.Suites[0].Cases[0]
	for field, s := range map[string]string{"suite": junit.Suites[0].Name, "case": c.Name, "message": c.Failure.Message, "text": c.Failure.Text} {
		noControl(t, "junit", field, s)
		if strings.ContainsRune(s, '\uFFFD') {
			t.Errorf("junit: %s lost a character to U+FFFD: %q", field, s)
		}
	}
}
