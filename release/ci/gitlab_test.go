package ci

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// template is templates/routeguard.yml: a spec document, then the jobs.
type template struct {
	inputs map[string]struct {
		Default *string  `yaml:"default"`
		Options []string `yaml:"options"`
	}
	jobs string // the second document, before interpolation
}

func readTemplate(t *testing.T) template {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "templates", "routeguard.yml"))
	if err != nil {
		t.Fatal(err)
	}
	spec, jobs, ok := strings.Cut(string(data), "\n---\n")
	if !ok {
		t.Fatal("templates/routeguard.yml: no `---` between spec and jobs")
	}
	var s struct {
		Spec struct {
			Inputs map[string]struct {
				Default *string  `yaml:"default"`
				Options []string `yaml:"options"`
			} `yaml:"inputs"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal([]byte(spec), &s); err != nil {
		t.Fatal(err)
	}
	return template{inputs: s.Spec.Inputs, jobs: jobs}
}

var interpRE = regexp.MustCompile(`\$\[\[ inputs\.([a-z-]+) \]\]`)

// interpolate does what GitLab does with `include: inputs:`: inputs
// without a default are required, unknown ones are an error, options are
// enforced, and $[[ inputs.x ]] is replaced by the value as text.
func (tp template) interpolate(inputs map[string]string) (string, error) {
	for name, v := range inputs {
		in, ok := tp.inputs[name]
		if !ok {
			return "", &inputError{"unknown input " + name}
		}
		if len(in.Options) > 0 && !contains(in.Options, v) {
			return "", &inputError{name + ": " + v + " is not one of " + strings.Join(in.Options, ", ")}
		}
	}
	for name, in := range tp.inputs {
		if _, ok := inputs[name]; !ok && in.Default == nil {
			return "", &inputError{"input " + name + " is required"}
		}
	}
	var missing error
	out := interpRE.ReplaceAllStringFunc(tp.jobs, func(m string) string {
		name := interpRE.FindStringSubmatch(m)[1]
		if v, ok := inputs[name]; ok {
			return v
		}
		if in, ok := tp.inputs[name]; ok {
			return *in.Default
		}
		missing = &inputError{"the template uses an undeclared input " + name}
		return ""
	})
	return out, missing
}

type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

type gitlabJob struct {
	Stage     string            `yaml:"stage"`
	Image     string            `yaml:"image"`
	Variables map[string]string `yaml:"variables"`
	Script    []string          `yaml:"script"`
	Artifacts struct {
		When    string            `yaml:"when"`
		Reports map[string]string `yaml:"reports"`
	} `yaml:"artifacts"`
}

// gitlabInclude is one entry of a .gitlab-ci.yml's include.
type gitlabInclude struct {
	Remote string            `yaml:"remote"`
	Inputs map[string]string `yaml:"inputs"`
}

// TestGitLabExampleIncludesTheTemplate: the repository's GitLab example
// includes the template with inputs the template declares.
func TestGitLabExampleIncludesTheTemplate(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "examples/flux/ci/gitlab-ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var ex struct {
		Include []gitlabInclude `yaml:"include"`
	}
	if err := yaml.Unmarshal(data, &ex); err != nil {
		t.Fatal(err)
	}
	if len(ex.Include) != 1 || !strings.HasSuffix(ex.Include[0].Remote, "/templates/routeguard.yml") {
		t.Fatalf("the example includes %+v", ex.Include)
	}
	out, err := readTemplate(t).interpolate(ex.Include[0].Inputs)
	if err != nil {
		t.Fatal(err)
	}
	var jobs map[string]gitlabJob
	if err := yaml.Unmarshal([]byte(out), &jobs); err != nil {
		t.Fatal(err)
	}
	if _, ok := jobs["routeguard-flux"]; !ok {
		t.Errorf("jobs = %v, want routeguard-flux", jobs)
	}
}

func TestGitLabTemplateInputs(t *testing.T) {
	tp := readTemplate(t)
	for _, tt := range []struct {
		inputs map[string]string
		want   string
	}{
		{map[string]string{}, "input version is required"},
		{map[string]string{"version": "v1.0.0", "command": "render"}, "command: render is not one of analyze, flux-build, diff, flux-diff, argocd-diff, merge"},
		{map[string]string{"version": "v1.0.0", "comand": "analyze"}, "unknown input comand"},
	} {
		if _, err := tp.interpolate(tt.inputs); err == nil || err.Error() != tt.want {
			t.Errorf("interpolate(%v) error %v, want %q", tt.inputs, err, tt.want)
		}
	}
}

// gitlabRun runs the template's job in a copy of the examples (the job
// writes its reports into the project directory) with POSIX sh, as a
// runner does in the job's image.
func gitlabRun(t *testing.T, inputs map[string]string) (project string, code int, log string) {
	t.Helper()
	return gitlabRunWith(t, gitlabOptions{inputs: inputs})
}

// gitlabRunEnv is gitlabRun with more CI/CD variables (which replace the
// defaults) and, with commit, the examples committed first (a diff needs a
// base revision).
func gitlabRunEnv(t *testing.T, inputs, vars map[string]string, commit bool) (project string, code int, log string) {
	t.Helper()
	return gitlabRunWith(t, gitlabOptions{inputs: inputs, vars: vars, commit: commit})
}

// gitlabOptions say how gitlabRunWith runs the job.
type gitlabOptions struct {
	inputs map[string]string
	vars   map[string]string // more CI/CD variables, replacing the defaults
	commit bool              // the examples committed first
	// prepare adds to the project (the merge request's files) before the
	// job runs.
	prepare func(project string)
	// project, when set, is the project directory to run in as it is
	// (the jobs of one pipeline); commit and the copy of the examples are
	// then the caller's.
	project string
}

func gitlabRunWith(t *testing.T, o gitlabOptions) (project string, code int, log string) {
	t.Helper()
	out, err := readTemplate(t).interpolate(o.inputs)
	if err != nil {
		t.Fatal(err)
	}
	var jobs map[string]gitlabJob
	if err := yaml.Unmarshal([]byte(out), &jobs); err != nil {
		t.Fatal(err)
	}
	job, ok := jobs["routeguard"]
	if !ok || len(jobs) != 1 {
		t.Fatalf("jobs: %v", jobs)
	}
	if job.Artifacts.When != "always" || job.Artifacts.Reports["codequality"] != glCodeQuality || job.Artifacts.Reports["junit"] != glJUnit {
		t.Errorf("artifacts = %+v: the reports must be kept when the job fails", job.Artifacts)
	}
	project = o.project
	if project == "" {
		project = t.TempDir()
		if err := os.CopyFS(filepath.Join(project, "examples"), os.DirFS(filepath.Join(root, "examples"))); err != nil {
			t.Fatal(err)
		}
		gitIn(t, project, "init", "-q")
		if o.commit {
			gitIn(t, project, "add", "-A")
			gitIn(t, project, "commit", "-q", "-m", "base")
		}
	}
	if o.prepare != nil {
		o.prepare(project)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TMPDIR=" + t.TempDir(), "CI_PROJECT_DIR=" + project}
	for k, v := range job.Variables {
		env = append(env, k+"="+v)
	}
	for k, v := range o.vars {
		env = append(env, k+"="+v) // exec keeps the last value of a key
	}
	cmd := exec.Command("sh", "-c", strings.Join(job.Script, "\n"))
	cmd.Dir, cmd.Env = project, env
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return project, code, buf.String()
}

// The reports GitLab reads, relative to the project directory: in a
// directory the job creates.
const (
	glCodeQuality = "routeguard-reports/gl-code-quality-report.json"
	glJUnit       = "routeguard-reports/routeguard-junit.xml"
)

func TestGitLabTemplateRuns(t *testing.T) {
	tests := []struct {
		name   string
		inputs map[string]string
		oracle []string
		code   int
		// wantIssues: the Code Quality report lists findings.
		wantIssues bool
	}{
		{name: "findings", inputs: map[string]string{"paths": "examples/broken/dangling-service"},
			oracle: []string{"analyze", "examples/broken/dangling-service"}, code: 1, wantIssues: true},
		{name: "clean", inputs: map[string]string{"paths": "examples/apps/routing/gateways", "args": "--fail-on error"},
			oracle: []string{"analyze", "examples/apps/routing/gateways", "--fail-on", "error"}, code: 0},
		{name: "flux build", inputs: map[string]string{"command": "flux-build", "paths": "examples/flux/clusters/prod", "args": "--all"},
			oracle: []string{"flux", "build", "examples/flux/clusters/prod", "--all"}, code: -1},
		{name: "cannot finish", inputs: map[string]string{"paths": "examples/no-such-app"}, code: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The release's routeguard records how it is run.
			argsFile := filepath.Join(t.TempDir(), "args")
			in := map[string]string{"version": "v" + releaseVersion, "download-url": serveWrappedRelease(t, argsProbe(argsFile))}
			for k, v := range tt.inputs {
				in[k] = v
			}
			project, code, log := gitlabRun(t, in)
			// Once, for every report: the text one on stdout (the job log),
			// Code Quality and JUnit into the files artifacts: reads.
			args, _ := os.ReadFile(argsFile)
			runs := strings.Split(strings.TrimSuffix(string(args), "\n"), "\n")
			if len(runs) != 1 {
				t.Errorf("the job ran routeguard %d times, want once for all reports:\n%s", len(runs), args)
			}
			for _, r := range []string{"--report text", "--report gitlab=" + filepath.Join(project, glCodeQuality), "--report junit=" + filepath.Join(project, glJUnit)} {
				if !strings.Contains(runs[0], r+" ") && !strings.HasSuffix(runs[0], r) {
					t.Errorf("routeguard ran without %s:\n%s", r, args)
				}
			}
			want := tt.code
			if tt.oracle != nil {
				c, _ := routeguardExit(t, project, tt.oracle...)
				if want == -1 {
					want = c
				} else if c != want {
					t.Fatalf("routeguard %v exits %d; the test expects %d", tt.oracle, c, want)
				}
			}
			if code != want {
				t.Fatalf("job exit %d, want %d:\n%s", code, want, log)
			}
			junit, err := os.ReadFile(filepath.Join(project, glJUnit))
			if err != nil {
				t.Fatalf("no JUnit report: %v\n%s", err, log)
			}
			var suites struct {
				XMLName xml.Name
			}
			if err := xml.Unmarshal(junit, &suites); err != nil || suites.XMLName.Local != "testsuites" {
				t.Errorf("JUnit report: %v, root %q:\n%s", err, suites.XMLName.Local, junit)
			}
			cq, err := os.ReadFile(filepath.Join(project, glCodeQuality))
			if want == 2 {
				if err == nil {
					t.Error("a Code Quality report after exit 2 would mark the target branch's findings fixed")
				}
				if !strings.Contains(string(junit), `<error message="routeguard could not finish (exit 2); see the job log">`) {
					t.Errorf("JUnit report does not name the failure:\n%s", junit)
				}
				return
			}
			if err != nil {
				t.Fatalf("no Code Quality report: %v\n%s", err, log)
			}
			var issues []map[string]any
			if err := json.Unmarshal(cq, &issues); err != nil {
				t.Fatalf("Code Quality report: %v\n%s", err, cq)
			}
			if tt.wantIssues && (len(issues) == 0 || !strings.Contains(string(cq), "RG1101")) {
				t.Errorf("Code Quality report without the findings:\n%s", cq)
			}
			if tt.wantIssues && !strings.Contains(string(junit), "RG1101") {
				t.Errorf("JUnit report without the findings:\n%s", junit)
			}
			if tt.wantIssues && !strings.Contains(log, "RG1101") {
				t.Errorf("the job log lacks the text report:\n%s", log)
			}
		})
	}
}

func TestGitLabTemplateRefusesTamperedRelease(t *testing.T) {
	_, code, log := gitlabRun(t, map[string]string{"version": "v" + releaseVersion, "download-url": serveRelease(t, true)})
	if code == 0 || !strings.Contains(log, "but the release's checksums.txt says") {
		t.Errorf("exit %d:\n%s", code, log)
	}
}
