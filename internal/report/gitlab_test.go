package report

import (
	"encoding/json"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
)

func TestGitLab(t *testing.T) {
	var issues []gitlabIssue
	if err := json.Unmarshal([]byte(render(t, "gitlab", Options{}, sample)), &issues); err != nil {
		t.Fatal(err)
	}
	if len(issues) != 3 {
		t.Fatalf("%d issues", len(issues))
	}
	i := issues[0]
	if i.CheckName != "RG1101" || i.Severity != "critical" || i.Location.Path != "apps/shop/route.yaml" || i.Location.Lines.Begin != 12 {
		t.Errorf("issue 0 = %+v", i)
	}
	if issues[1].Severity != "major" || issues[2].Severity != "info" {
		t.Errorf("severities %s %s", issues[1].Severity, issues[2].Severity)
	}
	seen := map[string]bool{}
	for _, is := range issues {
		if len(is.Fingerprint) != 32 || seen[is.Fingerprint] {
			t.Errorf("fingerprint %q not unique hex", is.Fingerprint)
		}
		seen[is.Fingerprint] = true
	}
	// Moving the object to another line keeps the fingerprint.
	moved := sample[0]
	moved.Source.Line = 99
	var again []gitlabIssue
	json.Unmarshal([]byte(render(t, "gitlab", Options{}, []analysis.Finding{moved})), &again)
	if again[0].Fingerprint != issues[0].Fingerprint {
		t.Error("fingerprint depends on the line")
	}
}

func TestGitLabEmptyIsArray(t *testing.T) {
	if got := render(t, "gitlab", Options{}, nil); got != "[]\n" {
		t.Errorf("got %q", got)
	}
}
