package ci

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// actionStep is one step of action.yml.
type actionStep struct {
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Run   string            `yaml:"run"`
	Uses  string            `yaml:"uses"`
	Env   map[string]string `yaml:"env"`
	With  map[string]string `yaml:"with"`
	Shell string            `yaml:"shell"`
}

// actionRun is what running the action's steps left behind.
type actionRun struct {
	outputs map[string]map[string]string // step id -> outputs
	ran     map[string]bool              // run steps that ran
	failed  string                       // the step that failed, if any
	log     string                       // stdout and stderr of every step
	summary string
	path    []string // GITHUB_PATH additions
	// runnerTemp is RUNNER_TEMP; the runner's own files (summary,
	// outputs, step scripts) are elsewhere.
	runnerTemp string
}

var (
	exprRE    = regexp.MustCompile(`^\$\{\{ (inputs|steps\.([a-z-]+)\.outputs)\.([a-z-]+) \}\}$`)
	outcomeRE = regexp.MustCompile(`^\$\{\{ steps\.([a-z-]+)\.outcome \}\}$`)
	// condRE is one clause of a run step's condition; clauses are joined
	// by &&.
	condRE = regexp.MustCompile(`^steps\.([a-z-]+)\.(outputs\.([a-z-]+)|outcome) != '([^']*)'$`)
)

// runAction runs the action's run: steps as the runner does (bash
// --noprofile --norc -eo pipefail, env from the step's env:, outputs and
// PATH through the GITHUB_* files) in the repository root. Steps that use
// another action are not run; their condition is checked by the callers
// through the outputs it reads.
func runAction(t *testing.T, inputs map[string]string) *actionRun {
	t.Helper()
	return runActionWith(t, actionOptions{inputs: inputs})
}

// runActionEnv is runAction with more runner variables (GITHUB_*), which
// replace the defaults.
func runActionEnv(t *testing.T, inputs, runner map[string]string) *actionRun {
	t.Helper()
	return runActionWith(t, actionOptions{inputs: inputs, runner: runner})
}

// actionOptions say how runActionWith runs the action.
type actionOptions struct {
	inputs map[string]string
	runner map[string]string // more runner variables, replacing the defaults
	dir    string            // the checkout, the steps' working directory (default: this repository)
	// prepare plants files in RUNNER_TEMP before the first step, as an
	// earlier step of the job could.
	prepare func(runnerTemp string)
	// uploadOutcome is the outcome of the SARIF upload (a uses: step,
	// not run here): "" is skipped, or success, failure.
	uploadOutcome string
}

func runActionWith(t *testing.T, o actionOptions) *actionRun {
	t.Helper()
	inputs, runner := o.inputs, o.runner
	a, _ := readAction(t)
	value := func(name string) string {
		if v, ok := inputs[name]; ok {
			return v
		}
		if in, ok := a.Inputs[name]; ok && in.Default != nil {
			return *in.Default
		}
		return ""
	}
	for name := range inputs {
		if _, ok := a.Inputs[name]; !ok {
			t.Fatalf("action.yml has no input %q", name)
		}
	}
	temp := t.TempDir()
	if o.prepare != nil {
		o.prepare(temp)
	}
	dir := root
	if o.dir != "" {
		dir = o.dir
	}
	r := &actionRun{outputs: map[string]map[string]string{}, ran: map[string]bool{}}
	summary := filepath.Join(t.TempDir(), "summary.md")
	ghPath := filepath.Join(t.TempDir(), "path")
	files := t.TempDir() // the runner's own files (outputs, step scripts)
	runnerArch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	for i, n := range a.Runs.Steps {
		var s actionStep
		if err := n.Decode(&s); err != nil {
			t.Fatal(err)
		}
		outcome := func(id string) string {
			switch {
			case id == "upload":
				return cmp.Or(o.uploadOutcome, "skipped")
			case !r.ran[id]:
				return "skipped"
			case r.failed == id:
				return "failure"
			}
			return "success"
		}
		if s.If != "" && s.Uses == "" {
			skip := false
			for _, clause := range strings.Split(s.If, " && ") {
				m := condRE.FindStringSubmatch(clause)
				if m == nil {
					t.Fatalf("step %s: condition %q is not one this test evaluates", s.ID, s.If)
				}
				got := r.outputs[m[1]][m[3]]
				if m[2] == "outcome" {
					got = outcome(m[1])
				}
				skip = skip || got == m[4]
			}
			if skip {
				continue
			}
		}
		if s.Uses != "" || r.failed != "" {
			continue
		}
		env := []string{"HOME=" + t.TempDir(), "RUNNER_OS=Linux", "RUNNER_ARCH=" + runnerArch, "RUNNER_TEMP=" + temp,
			"GITHUB_STEP_SUMMARY=" + summary, "GITHUB_PATH=" + ghPath, "GITHUB_EVENT_NAME=push"}
		path := os.Getenv("PATH")
		for _, p := range r.path {
			path = p + string(os.PathListSeparator) + path
		}
		env = append(env, "PATH="+path)
		for k, v := range runner {
			env = append(env, k+"="+v) // exec keeps the last value of a key
		}
		for k, v := range s.Env {
			if m := outcomeRE.FindStringSubmatch(v); m != nil {
				env = append(env, k+"="+outcome(m[1]))
				continue
			}
			m := exprRE.FindStringSubmatch(v)
			if m == nil {
				t.Fatalf("step %s: env %s = %q is not an expression this test evaluates", s.ID, k, v)
			}
			if m[1] == "inputs" {
				env = append(env, k+"="+value(m[3]))
			} else {
				env = append(env, k+"="+r.outputs[m[2]][m[3]])
			}
		}
		out := filepath.Join(files, fmt.Sprintf("output-%d", i))
		env = append(env, "GITHUB_OUTPUT="+out)
		script := filepath.Join(files, fmt.Sprintf("step-%d.sh", i))
		if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Dir = dir
		cmd.Env = env
		var log bytes.Buffer
		cmd.Stdout, cmd.Stderr = &log, &log
		err := cmd.Run()
		r.log += log.String()
		r.ran[s.ID] = true
		if err != nil {
			r.failed = s.ID
		}
		r.outputs[s.ID] = readKV(t, out)
		if data, err := os.ReadFile(ghPath); err == nil {
			r.path = strings.Fields(string(data))
		}
	}
	if data, err := os.ReadFile(summary); err == nil {
		r.summary = string(data)
	}
	r.runnerTemp = temp
	return r
}

func readKV(t *testing.T, file string) map[string]string {
	t.Helper()
	kv := map[string]string{}
	data, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return kv
	} else if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			kv[k] = v
		}
	}
	return kv
}

func TestActionRuns(t *testing.T) {
	tests := []struct {
		name     string
		inputs   map[string]string
		oracle   []string // routeguard's own command line with the same meaning
		wantCode string
		summary  []string
	}{
		{
			name:     "analyze with findings",
			inputs:   map[string]string{"paths": "examples/broken/dangling-service"},
			oracle:   []string{"analyze", "examples/broken/dangling-service", "-o", "sarif"},
			wantCode: "1",
			summary:  []string{"### routeguard analyze", "**Findings reach the failing severity.**", "findings in total."},
		},
		{
			name:     "analyze, several paths, failing only on errors",
			inputs:   map[string]string{"paths": "examples/apps/routing/gateways\nexamples/apps/routing/ingresses", "args": "--fail-on error"},
			oracle:   []string{"analyze", "examples/apps/routing/gateways", "examples/apps/routing/ingresses", "--fail-on", "error", "-o", "sarif"},
			wantCode: "0",
			summary:  []string{"No finding reaches the failing severity."},
		},
		{
			name:     "flux build",
			inputs:   map[string]string{"command": "flux-build", "paths": "examples/flux/clusters/prod", "args": "--all"},
			oracle:   []string{"flux", "build", "examples/flux/clusters/prod", "--all", "--report", "sarif"},
			summary:  []string{"### routeguard flux-build", "findings in total."},
			wantCode: "", // whatever routeguard says
		},
		{
			name:     "routeguard cannot finish",
			inputs:   map[string]string{"paths": "examples/no-such-app"},
			wantCode: "2",
			summary:  []string{"**routeguard could not finish (exit 2):**", "examples/no-such-app"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := map[string]string{"version": "v" + releaseVersion, "download-url": serveRelease(t, false)}
			for k, v := range tt.inputs {
				in[k] = v
			}
			r := runAction(t, in)
			if !r.ran["install"] || r.outputs["install"] == nil || len(r.path) != 1 {
				t.Fatalf("install did not put routeguard on PATH (failed: %q):\n%s", r.failed, r.log)
			}
			if !strings.Contains(r.log, "routeguard v") && !strings.Contains(r.log, "routeguard dev") {
				t.Errorf("install did not run `routeguard version`:\n%s", r.log)
			}
			for _, n := range []string{"routeguard", "routeguard-istio"} {
				if _, err := os.Stat(filepath.Join(r.path[0], n)); err != nil {
					t.Errorf("installed: %v", err)
				}
			}
			code := r.outputs["run"]["exit-code"]
			want := tt.wantCode
			var oracleOut []byte
			if tt.oracle != nil {
				var c int
				c, oracleOut = routeguardExit(t, root, tt.oracle...)
				if want == "" {
					want = fmt.Sprint(c)
				} else if fmt.Sprint(c) != want {
					t.Fatalf("routeguard %s exits %d; the test expects %s", strings.Join(tt.oracle, " "), c, want)
				}
			}
			if code != want {
				t.Fatalf("exit-code = %q, want %s\n%s", code, want, r.log)
			}
			sarif := r.outputs["run"]["sarif-file"]
			if want == "2" {
				if sarif != "" {
					t.Errorf("sarif-file = %q after exit 2: the upload would close every alert", sarif)
				}
			} else {
				data, err := os.ReadFile(sarif)
				if err != nil {
					t.Fatalf("sarif-file: %v", err)
				}
				if !bytes.Equal(data, oracleOut) {
					t.Errorf("the SARIF report differs from `routeguard %s`", strings.Join(tt.oracle, " "))
				}
			}
			for _, s := range tt.summary {
				if !strings.Contains(r.summary, s) {
					t.Errorf("summary lacks %q:\n%s", s, r.summary)
				}
			}
			// The same run printed the text report into the log.
			if want == "1" && !strings.Contains(r.log, "examples/broken/dangling-service/app.yaml:33: error RG1101 HTTPRoute checkout/cart") {
				t.Errorf("the log lacks the text report:\n%s", r.log)
			}
			if want != "2" && strings.Count(r.log, "--report text --report sarif=") != 1 {
				t.Errorf("routeguard did not run once with the text and SARIF reports:\n%s", r.log)
			}
			if _, err := exec.LookPath("jq"); err == nil && want == "1" && !strings.Contains(r.summary, "| error | RG1101 | <code>examples/broken/dangling-service/app&#46;yaml&#58;") {
				t.Errorf("summary lacks the finding's row:\n%s", r.summary)
			}
			// The last step fails the action exactly when routeguard did not exit 0.
			if failed := r.failed == "fail"; failed != (want != "0") || r.ran["fail"] != (want != "0") {
				t.Errorf("fail step ran=%v failed=%v for exit %s (failed step %q)\n%s", r.ran["fail"], failed, want, r.failed, r.log)
			}
		})
	}
}

func TestActionRefusesBadInput(t *testing.T) {
	tests := []struct {
		name   string
		inputs map[string]string
		tamper bool
		step   string
		log    string
	}{
		{name: "checksum mismatch", tamper: true, step: "install", log: "but the release's checksums.txt says"},
		{name: "not a version", inputs: map[string]string{"version": "latest; rm -rf /"}, step: "install", log: "input version must name a release such as v0.1.0"},
		{name: "no such release", inputs: map[string]string{"version": "v9.9.9"}, step: "install", log: "is v9.9.9 a routeguard release?"},
		{name: "unknown command", inputs: map[string]string{"command": "render"}, step: "run", log: "input command must be analyze, flux-build, diff, flux-diff, argocd-diff or merge, got 'render'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := map[string]string{"version": "v" + releaseVersion, "download-url": serveRelease(t, tt.tamper)}
			for k, v := range tt.inputs {
				in[k] = v
			}
			r := runAction(t, in)
			if r.failed != tt.step || !strings.Contains(r.log, tt.log) {
				t.Errorf("failed step %q, want %q with %q in the log:\n%s", r.failed, tt.step, tt.log, r.log)
			}
			if tt.step == "install" && len(r.path) != 0 {
				t.Errorf("a refused install still added %v to PATH", r.path)
			}
		})
	}
}

// TestActionDiff runs the action's diff mode on this checkout (base HEAD,
// head the work tree): the review lands in the job summary and in the
// comment file, the comment step runs and, outside a pull request, posts
// nothing; routing changes alone do not fail the step.
func TestActionDiff(t *testing.T) {
	for _, tt := range []struct{ command, paths, run string }{
		{"diff", "examples/apps/routing/gateways", "routeguard diff --base HEAD"},
		{"flux-diff", "examples/flux/clusters/prod", "routeguard flux diff --base HEAD"},
		{"argocd-diff", "examples/argocd/root-app.yaml", "routeguard argocd diff --base HEAD"},
	} {
		t.Run(tt.command, func(t *testing.T) {
			in := map[string]string{"version": "v" + releaseVersion, "download-url": serveRelease(t, false),
				"command": tt.command, "base": "HEAD", "paths": tt.paths}
			r := runAction(t, in)
			if r.outputs["run"]["exit-code"] != "0" || r.failed != "" {
				t.Fatalf("exit-code %q, failed step %q:\n%s", r.outputs["run"]["exit-code"], r.failed, r.log)
			}
			if !strings.Contains(r.log, tt.run) {
				t.Errorf("the log does not show %q:\n%s", tt.run, r.log)
			}
			comment := r.outputs["run"]["comment-file"]
			data, err := os.ReadFile(comment)
			if err != nil || !strings.HasPrefix(string(data), "<!-- routeguard-diff -->\n") || !strings.Contains(string(data), tt.paths) {
				t.Fatalf("comment-file %q: %v\n%s", comment, err, data)
			}
			if r.outputs["run"]["sarif-file"] != "" {
				t.Errorf("diff set sarif-file: the upload would close every alert")
			}
			if !strings.Contains(r.summary, "### routeguard: routing review") {
				t.Errorf("summary lacks the review:\n%s", r.summary)
			}
			if !r.ran["comment"] || !strings.Contains(r.log, "not a pull request") {
				t.Errorf("comment step ran=%v:\n%s", r.ran["comment"], r.log)
			}
		})
	}
}

// TestActionShardsAndMerge runs the action as a matrix would: two jobs
// with shard 1/2 and 2/2 of a diff, each writing its shard file (output
// shard-file, no comment), then one job with command merge over the
// directory they were downloaded to: its comment is the one an unsharded
// diff job writes, byte for byte.
func TestActionShardsAndMerge(t *testing.T) {
	url := serveRelease(t, false)
	for _, command := range []string{"diff", "argocd-diff"} {
		t.Run(command, func(t *testing.T) {
			paths := "examples/apps/routing/gateways examples/apps/routing/istio examples/apps/routing/ingresses"
			if command == "argocd-diff" {
				paths = "examples/argocd/root-app.yaml"
			}
			in := map[string]string{"version": "v" + releaseVersion, "download-url": url, "command": command, "base": "HEAD", "paths": paths, "charts": "offline"}
			full := runAction(t, in)
			want, err := os.ReadFile(full.outputs["run"]["comment-file"])
			if err != nil || full.failed != "" {
				t.Fatalf("unsharded: %v, failed step %q:\n%s", err, full.failed, full.log)
			}
			artifacts := t.TempDir()
			for i := 1; i <= 2; i++ {
				in["shard"] = fmt.Sprintf("%d/2", i)
				r := runAction(t, in)
				f := r.outputs["run"]["shard-file"]
				if r.failed != "" || f == "" || r.outputs["run"]["comment-file"] != "" || r.ran["comment"] {
					t.Fatalf("shard %d/2: failed step %q, shard-file %q, comment-file %q, comment step ran %v:\n%s",
						i, r.failed, f, r.outputs["run"]["comment-file"], r.ran["comment"], r.log)
				}
				if !strings.Contains(r.log, "--shard "+in["shard"]+" --shard-out") || !strings.Contains(r.summary, "(shard "+in["shard"]+")") || !strings.Contains(r.summary, " built (") {
					t.Errorf("shard %d/2: the log or the summary does not show the shard:\n%s\n--- summary\n%s", i, r.log, r.summary)
				}
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(artifacts, fmt.Sprintf("shard-%d.json", i)), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			m := runAction(t, map[string]string{"version": "v" + releaseVersion, "download-url": url, "command": "merge", "paths": artifacts})
			got, err := os.ReadFile(m.outputs["run"]["comment-file"])
			if err != nil || m.failed != "" || m.outputs["run"]["exit-code"] != full.outputs["run"]["exit-code"] {
				t.Fatalf("merge: %v, failed step %q, exit-code %q (unsharded %q):\n%s", err, m.failed, m.outputs["run"]["exit-code"], full.outputs["run"]["exit-code"], m.log)
			}
			if string(got) != string(want) {
				t.Errorf("the merged comment differs\n--- unsharded\n%s\n--- merged\n%s", want, got)
			}
			if !strings.Contains(m.log, "routeguard report merge --fail-on-new error -o markdown "+filepath.Join(artifacts, "shard-1.json")) || !m.ran["comment"] {
				t.Errorf("merge: the log does not show the merge of both files, or the comment step did not run:\n%s", m.log)
			}
		})
	}
	for _, tc := range []struct{ name, command, shard, paths, log string }{
		{"shard zero", "diff", "0/2", ".", "input shard must be I/N (such as 2/4), got '0/2'"},
		{"shard past N", "diff", "3/2", ".", "input shard must be I/N with 1 <= I <= N, got '3/2'"},
		{"shard not numbers", "diff", "1/2; id", ".", "input shard must be I/N (such as 2/4), got '1/2; id'"},
		{"shard of analyze", "analyze", "1/2", ".", "input shard is for the diff, flux-diff and argocd-diff commands, not analyze"},
		{"merge of nothing", "merge", "", t.TempDir(), "command merge: no shard file (*.json) in "},
		{"merge of a file of the repository", "merge", "", "README.md", "README.md is a file of the repository, not a shard job's artifact"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runAction(t, map[string]string{"version": "v" + releaseVersion, "download-url": url, "command": tc.command, "shard": tc.shard, "paths": tc.paths, "base": "HEAD"})
			if r.failed != "run" || !strings.Contains(r.log, tc.log) {
				t.Errorf("failed step %q, want run with %q in the log:\n%s", r.failed, tc.log, r.log)
			}
		})
	}
}
