package ci

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestActionAnnotates: where code scanning does not take the report
// (upload-sarif off, a fork, a refused upload on a private repository) the
// findings are annotations, one workflow command per finding, errors first;
// after an upload that went through there are none.
func TestActionAnnotates(t *testing.T) {
	t.Parallel()
	needTools(t)
	release := serveRelease(t, false)
	want := "::error file=examples/broken/dangling-service/app.yaml,line=33,title=RG1101 backend Service not found::HTTPRoute checkout/cart: backendRef names Service checkout/cart-v2"
	for _, tc := range []struct {
		name, upload, outcome string
		annotated, refused    bool
	}{
		{"upload off", "false", "", true, false},
		{"upload refused", "true", "failure", true, true},
		{"uploaded", "true", "success", false, false},
	} {
		r := runActionWith(t, actionOptions{uploadOutcome: tc.outcome, inputs: map[string]string{
			"version": "v" + releaseVersion, "download-url": release, "paths": "examples/broken/dangling-service", "upload-sarif": tc.upload}})
		if r.outputs["run"]["exit-code"] != "1" || r.failed != "fail" {
			t.Fatalf("%s: exit code %q, failed step %q:\n%s", tc.name, r.outputs["run"]["exit-code"], r.failed, r.log)
		}
		if got := r.ran["annotate"] && strings.Contains(r.log, want); got != tc.annotated {
			t.Errorf("%s: annotated %v, want %v:\n%s", tc.name, got, tc.annotated, r.log)
		}
		if got := strings.Contains(r.log, "code scanning refused the SARIF upload"); got != tc.refused {
			t.Errorf("%s: says the upload was refused: %v, want %v", tc.name, got, tc.refused)
		}
	}
}

// TestActionAnnotationsInert: what a SARIF report quotes from a repository
// (file names with ',' and ':', messages with newlines and '%') cannot end
// a property or start a command of its own; errors come before warnings.
func TestActionAnnotationsInert(t *testing.T) {
	t.Parallel()
	needTools(t)
	a, _ := readAction(t)
	var script string
	for _, n := range a.Runs.Steps {
		var s actionStep
		if err := n.Decode(&s); err != nil {
			t.Fatal(err)
		}
		if s.ID == "annotate" {
			script = s.Run
		}
	}
	if script == "" {
		t.Fatal("action.yml has no annotate step")
	}
	sarif := filepath.Join(t.TempDir(), "r.sarif")
	os.WriteFile(sarif, []byte(`{"runs":[{"tool":{"driver":{"rules":[{"id":"RG4002","name":"image tag"},{"id":"RG1101","name":"backend Service not found"}]}},
"results":[
 {"ruleId":"RG4002","level":"warning","message":{"text":"w"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.yaml"}}}]},
 {"ruleId":"RG1101","level":"error","message":{"text":"x\n::error file=README.md::forged\r100% done"},
  "locations":[{"physicalLocation":{"artifactLocation":{"uri":"apps/x,line=1::y.yaml"},"region":{"startLine":4}}}]}]}]}`), 0o644)
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Env = append(os.Environ(), "RG_SARIF="+sarif, "RG_UPLOAD=skipped")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	want := []string{
		"::error file=apps/x%2Cline=1%3A%3Ay.yaml,line=4,title=RG1101 backend Service not found::x%0A::error file=README.md::forged%0D100%25 done",
		"::warning file=a.yaml,title=RG4002 image tag::w",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("annotations:\n%s\nwant:\n%s", out, strings.Join(want, "\n"))
	}
}
