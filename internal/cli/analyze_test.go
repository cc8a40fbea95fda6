package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/report"
)

// runCLI runs one routeguard command line with buffers for streams.
func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	wd, _ := os.Getwd()
	env := &Env{
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv:  func(string) string { return "" },
		Environ: func() []string { return nil },
		Getwd:   func() (string, error) { return wd, nil },
	}
	code = Execute(context.Background(), args, env)
	return out.String(), errb.String(), code
}

type jsonFinding struct {
	Code, Severity, File string
	Line                 int
	Object               struct{ Kind, Namespace, Name string }
}

func findingsOf(t *testing.T, stdout string) []string {
	t.Helper()
	var doc struct{ Findings []jsonFinding }
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("stdout is not the json report: %v\n%s", err, stdout)
	}
	var out []string
	for _, f := range doc.Findings {
		out = append(out, f.Code+" "+f.Severity+" "+f.Object.Kind+" "+f.Object.Namespace+"/"+f.Object.Name+" "+filepath.Base(f.File))
	}
	return out
}

// writeConfig writes a .routeguard.yaml into a copy of testdata/analyze and
// returns the copy's root.
func analyzeRepo(t *testing.T, cfg string) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range []string{"app/app.yaml", "platform/gateway.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "analyze", f))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755)
		if err := os.WriteFile(filepath.Join(root, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if cfg != "" {
		if err := os.WriteFile(filepath.Join(root, ".routeguard.yaml"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestAnalyzeConfigAndFailOn(t *testing.T) {
	all := []string{
		"RG0001 warning HTTPRoute shop/web app.yaml",
		"RG1101 error HTTPRoute shop/web app.yaml",
		"RG4002 warning Deployment shop/web app.yaml",
	}
	tests := []struct {
		name   string
		config string
		args   []string
		want   []string
		code   int
	}{
		{name: "defaults", want: all, code: ExitFindings},
		{name: "context path resolves the gateway", config: "contextPaths: [platform]\n",
			want: all[1:], code: ExitFindings},
		{name: "suppression and override", config: "severity:\n  RG1101: warning\nsuppress:\n  - code: RG4*\n    object: Deployment shop/*\n",
			want: []string{"RG0001 warning HTTPRoute shop/web app.yaml", "RG1101 warning HTTPRoute shop/web app.yaml"}, code: ExitOK},
		{name: "failOn warning from config", config: "failOn: warning\nsuppress: [{code: RG1101}]\n",
			want: []string{all[0], all[2]}, code: ExitFindings},
		{name: "--fail-on never wins over config", config: "failOn: warning\n", args: []string{"--fail-on", "never"},
			want: all, code: ExitOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := analyzeRepo(t, tc.config)
			args := append([]string{"analyze", "-o", "json", "--repo-root", root, filepath.Join(root, "app")}, tc.args...)
			stdout, stderr, code := runCLI(t, "", args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.code, stderr)
			}
			if got := findingsOf(t, stdout); !slices.Equal(got, tc.want) {
				t.Errorf("findings:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

func TestAnalyzeStdin(t *testing.T) {
	data, err := os.ReadFile("testdata/analyze/app/app.yaml")
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, string(data), "analyze", "-", "--fail-on", "error")
	if code != ExitFindings {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "<stdin>\n") ||
		!strings.Contains(stdout, "\n  <stdin>:13: error RG1101 HTTPRoute shop/web: backendRef names Service shop/web-v2") {
		t.Errorf("text report lacks the grouped <stdin>:line finding:\n%s", stdout)
	}
	if strings.Contains(stdout, "\x1b[") {
		t.Error("colour in a report that is not on a terminal")
	}
}

func TestAnalyzeFormats(t *testing.T) {
	root := analyzeRepo(t, "")
	for _, format := range report.Formats() {
		stdout, stderr, code := runCLI(t, "", "analyze", "-o", format, "--repo-root", root, filepath.Join(root, "app"))
		if code != ExitFindings || !strings.Contains(stdout, "RG1101") {
			t.Errorf("-o %s: exit %d, stderr %s, stdout:\n%s", format, code, stderr, stdout)
		}
	}
}

func TestAnalyzeErrors(t *testing.T) {
	root := analyzeRepo(t, "")
	bad := analyzeRepo(t, "failOn: error\nsupress: []\n")
	missingCtx := analyzeRepo(t, "contextPaths: [nowhere]\n")
	tests := []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"unknown format", "", []string{"-o", "xml", filepath.Join(root, "app")}, `unknown output format "xml"`},
		{"bad fail-on", "", []string{"--fail-on", "sometimes", filepath.Join(root, "app")}, `invalid argument "sometimes" for "--fail-on" flag: must be error, warning or never`},
		{"missing app", "", []string{"--repo-root", root, filepath.Join(root, "nope")}, "no such directory"},
		{"unknown config key", "", []string{"--repo-root", bad, filepath.Join(bad, "app")}, `.routeguard.yaml:2: unknown key "supress"`},
		{"missing context path", "", []string{"--repo-root", missingCtx, filepath.Join(missingCtx, "app")}, "rendering context path nowhere"},
		{"stdin with paths", "", []string{"-", filepath.Join(root, "app")}, "cannot be combined"},
		{"malformed stdin", "kind: [\n", []string{"-"}, "<stdin>:2: malformed YAML"},
		{"unknown severity code in config", "", []string{"--config", writeFile(t, "severity:\n  RG9999: info\n"), "-"}, "unknown code"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tc.stdin, append([]string{"analyze"}, tc.args...)...)
			if code != ExitError {
				t.Errorf("exit %d, want %d", code, ExitError)
			}
			if stdout != "" {
				t.Errorf("stdout not empty on failure:\n%s", stdout)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not contain %q", stderr, tc.want)
			}
		})
	}
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "routeguard.yaml")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCodes runs `routeguard codes` as the lead's CLI will: the catalog as
// text and as JSON, and an unknown format refused.
func TestCodes(t *testing.T) {
	out, stderr, code := runCLI(t, "", "codes")
	if code != ExitOK || !strings.Contains(out, "RG1101  error    backend Service not found") || !strings.Contains(out, "RG4003  retired") {
		t.Fatalf("codes: exit %d, stderr %q, stdout:\n%s", code, stderr, out)
	}
	out, _, code = runCLI(t, "", "codes", "-o", "json")
	var doc struct {
		SchemaVersion int
		Codes         []struct{ ID, Severity string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != ExitOK || doc.SchemaVersion != 1 || len(doc.Codes) < 40 {
		t.Fatalf("codes -o json: exit %d, %v, %d codes", code, err, len(doc.Codes))
	}
	out, stderr, code = runCLI(t, "", "codes", "-o", "sarif")
	if code != ExitError || out != "" || !strings.Contains(stderr, "use one of json, text") {
		t.Fatalf("codes -o sarif: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}
