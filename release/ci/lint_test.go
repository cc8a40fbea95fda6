package ci

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	yaml "go.yaml.in/yaml/v3"
)

const root = "../.."

func linter(t *testing.T) (*actionlint.Linter, *actionlint.Project, *bytes.Buffer) {
	t.Helper()
	var out bytes.Buffer
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{Oneline: true, Color: actionlint.ColorOptionKindNever})
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	p, err := actionlint.NewProject(abs)
	if err != nil {
		t.Fatal(err)
	}
	return l, p, &out
}

func lint(t *testing.T, name string, content []byte) {
	t.Helper()
	l, p, out := linter(t)
	errs, err := l.Lint(name, content, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Errorf("%s", e)
	}
	if len(errs) > 0 {
		t.Logf("actionlint:\n%s\n--- %s ---\n%s", out, name, content)
	}
}

// TestWorkflows lints the repository's release workflow and the CI example.
func TestWorkflows(t *testing.T) {
	for _, f := range []string{".github/workflows/release.yml", "examples/flux/ci/github-workflow.yml", "examples/ci/github-sharded-review.yml", "examples/flux/ci/github-sharded-review.yml", "examples/ci/github-action-sharded-review.yml"} {
		t.Run(f, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(root, f))
			if err != nil {
				t.Fatal(err)
			}
			lint(t, filepath.Join(root, f), data)
		})
	}
}

// action is the part of action.yml the tests read.
type action struct {
	Inputs map[string]struct {
		Description string `yaml:"description"`
		Required    bool   `yaml:"required"`
		Default     *string
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string      `yaml:"using"`
		Steps []yaml.Node `yaml:"steps"`
	} `yaml:"runs"`
}

func readAction(t *testing.T) (*action, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	return &a, data
}

// TestActionMetadata lints a workflow that uses the action as a local
// action: actionlint then checks action.yml's metadata (name, description,
// runs, branding) and the inputs given against the ones declared.
func TestActionMetadata(t *testing.T) {
	wf := `on: pull_request
permissions:
  contents: read
  security-events: write
jobs:
  routeguard:
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/checkout@v6
      - id: rg
        uses: ./
        with:
          version: v0.1.0
          command: flux-build
          paths: clusters/prod
          args: --all
      - run: echo "exit ${{ steps.rg.outputs.exit-code }}, report ${{ steps.rg.outputs.sarif-file }}"
`
	lint(t, filepath.Join(root, ".github/workflows/action-metadata-test.yml"), []byte(wf))

	// A wrong input name must be reported: the check above is not vacuous.
	l, p, _ := linter(t)
	bad := strings.Replace(wf, "command: flux-build", "comand: flux-build", 1)
	errs, err := l.Lint(filepath.Join(root, ".github/workflows/action-metadata-test.yml"), []byte(bad), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) == 0 || !strings.Contains(errs[0].Message, `input "comand" is not defined`) {
		t.Errorf("a misspelt input: errors %v", errs)
	}
}

// TestActionSteps lints the composite action's steps as the steps of a
// reusable workflow with the same inputs, so that actionlint checks their
// expressions (inputs.*, steps.*.outputs.*), shells and `uses:`.
// actionlint does not lint composite steps itself.
func TestActionSteps(t *testing.T) {
	a, _ := readAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q", a.Runs.Using)
	}
	var b strings.Builder
	b.WriteString("on:\n  workflow_call:\n    inputs:\n")
	for name, in := range a.Inputs {
		b.WriteString("      " + name + ":\n        type: string\n        required: " + strconv.FormatBool(in.Required) + "\n")
		if in.Default != nil {
			b.WriteString("        default: " + strconv.Quote(*in.Default) + "\n")
		}
	}
	b.WriteString("permissions:\n  contents: read\n  security-events: write\njobs:\n  action:\n    runs-on: ubuntu-24.04\n    steps:\n")
	steps, err := yaml.Marshal(a.Runs.Steps)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimRight(string(steps), "\n"), "\n") {
		b.WriteString("      " + line + "\n")
	}
	lint(t, filepath.Join(root, ".github/workflows/action-steps-test.yml"), []byte(b.String()))

	for i, s := range a.Runs.Steps {
		var step struct {
			Run   string `yaml:"run"`
			Shell string `yaml:"shell"`
		}
		if err := s.Decode(&step); err != nil {
			t.Fatal(err)
		}
		if step.Run == "" {
			continue
		}
		if step.Shell != "bash" {
			t.Errorf("step %d: shell %q; a composite action's run steps need `shell: bash`", i+1, step.Shell)
		}
		// Inputs reach scripts through env, never spliced into the code.
		if strings.Contains(step.Run, "${{") {
			t.Errorf("step %d: an expression inside run:; pass it through env:", i+1)
		}
	}
	for name, o := range a.Outputs {
		if !regexp.MustCompile(`^\$\{\{ steps\.run\.outputs\.[a-z-]+ \}\}$`).MatchString(o.Value) {
			t.Errorf("output %s = %q", name, o.Value)
		}
	}
}

// nodeMajors are the first major versions of the actions used here that
// run on Node 24; older majors run on Node 20, which GitHub retired.
var nodeMajors = map[string]int{
	"actions/cache":                     5,
	"actions/checkout":                  5,
	"actions/setup-go":                  6,
	"github/codeql-action/upload-sarif": 4,
	"goreleaser/goreleaser-action":      7,
}

var usesRE = regexp.MustCompile(`(?m)^\s*(?:-\s+)?uses:\s*([^@\s]+)@(\S+)`)

// TestActionPins: every action used is pinned to a major version (or a
// commit) at least as new as its Node 24 release; Renovate keeps them
// current (renovate.json).
func TestActionPins(t *testing.T) {
	files := []string{"action.yml", ".github/workflows/release.yml", "examples/flux/ci/github-workflow.yml", "README.md"}
	seen := 0
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range usesRE.FindAllStringSubmatch(string(data), -1) {
			name, ref := m[1], m[2]
			if strings.HasPrefix(name, "./") || name == "routeguard/routeguard" {
				continue
			}
			seen++
			min, known := nodeMajors[name]
			if !known {
				t.Errorf("%s: %s@%s: add the action to nodeMajors (its first Node 24 major)", f, name, ref)
				continue
			}
			if regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(ref) {
				continue
			}
			major, err := strconv.Atoi(strings.TrimPrefix(strings.SplitN(ref, ".", 2)[0], "v"))
			if err != nil || !strings.HasPrefix(ref, "v") {
				t.Errorf("%s: %s@%s: pin a major version (v%d) or a commit", f, name, ref, min)
			} else if major < min {
				t.Errorf("%s: %s@%s runs on a retired Node runtime; use v%d or later", f, name, ref, min)
			}
		}
	}
	if seen < 4 {
		t.Errorf("found %d action references; the pattern is broken", seen)
	}
}
