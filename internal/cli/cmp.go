package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/routeguard/routeguard/internal/cmp"
	"github.com/routeguard/routeguard/internal/render"
)

func init() {
	register(command{name: "cmp", summary: "Argo CD Config Management Plugin: generate, parameters, discover", run: runCMP})
}

const cmpUsage = `routeguard cmp <generate|parameters|discover>

Run by argocd-cmp-server (see cmp/plugin.yaml and docs/cmp.md) in the app's
directory inside its unpacked copy of the repository:
  generate    render and analyze the app; print the manifests, or fail with a
              report that Argo CD shows as the app's ComparisonError
  parameters  print the parameter announcement (JSON) for the Argo CD UI
  discover    print the file that makes this directory a routeguard app
Settings come from the Argo CD build environment: ARGOCD_APP_*, KUBE_VERSION,
KUBE_API_VERSIONS, plugin env ARGOCD_ENV_{FAIL_ON,REPORT,ALLOW_NETWORK} and
parameters (ARGOCD_APP_PARAMETERS).
`

func runCMP(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(env.Stdout, cmpUsage)
		if len(args) == 0 {
			return ExitError
		}
		return ExitOK
	}
	switch args[0] {
	case "generate":
		return runCMPGenerate(ctx, env, args[1:])
	case "parameters":
		return runCMPParameters(ctx, env, args[1:])
	case "discover":
		return runCMPDiscover(ctx, env, args[1:])
	}
	return failf(env, "cmp: unknown subcommand %q; use generate, parameters or discover", args[0])
}

// cmpOutcome is a command's whole output, written only once it is complete.
type cmpOutcome struct {
	stdout, stderr []byte
	code           int
}

func cmpFail(code int, format string, a ...any) cmpOutcome {
	msg := strings.TrimRight(fmt.Sprintf(format, a...), "\n")
	return cmpOutcome{stderr: []byte("routeguard: " + msg + "\n"), code: code}
}

// runBuffered runs work and writes its outcome, unless ctx ends first
// (argocd-cmp-server sends SIGTERM at the request deadline): then it says
// so on stderr and returns at once, with nothing on stdout.
func runBuffered(ctx context.Context, env *Env, what string, work func() cmpOutcome) int {
	done := make(chan cmpOutcome, 1)
	go func() { done <- work() }()
	var o cmpOutcome
	select {
	case o = <-done:
		if ctx.Err() != nil {
			o = cmpOutcome{code: ExitError}
		}
	case <-ctx.Done():
	}
	if ctx.Err() != nil {
		fmt.Fprintf(env.Stderr, "routeguard: %s stopped before finishing (SIGTERM or the repo-server deadline); nothing was printed. "+
			"If the app needs longer, raise controller.repo.server.timeout.seconds (and server.repo.server.timeout.seconds) in argocd-cmd-params-cm\n", what)
		return ExitError
	}
	env.Stderr.Write(o.stderr)
	if _, err := env.Stdout.Write(o.stdout); err != nil {
		fmt.Fprintf(env.Stderr, "routeguard: writing output: %v\n", err)
		return ExitError
	}
	return o.code
}

func runCMPParameters(ctx context.Context, env *Env, args []string) int {
	fs := flagSet("cmp parameters", "routeguard cmp parameters", env)
	if code, done := parseFlags(fs, args); done {
		return code
	}
	return runBuffered(ctx, env, "cmp parameters", func() cmpOutcome { return cmpParameters(ctx, env) })
}

// cmpParameters renders the app with its current parameters to find what to
// offer. An app that does not render still gets the knobs that do not
// depend on its content, so the UI can be used to fix its parameters.
func cmpParameters(ctx context.Context, env *Env) cmpOutcome {
	app, _, err := renderCMPApp(ctx, env)
	if app == nil {
		// The environment or a parameter is wrong: still announce, so that
		// the UI shows the form in which it can be fixed.
		app = &cmpApp{build: &cmp.Build{SourcePath: env.Getenv("ARGOCD_APP_SOURCE_PATH")}}
		app.opts.Helm.Release = env.Getenv("ARGOCD_APP_NAME")
	}
	cwd, _ := env.Getwd()
	root := cmp.RepoRoot(cwd, app.build.SourcePath)
	in := cmp.AnnounceInput{Release: app.opts.Helm.Release, FailOn: app.settings.FailOn}
	if in.Release == "" {
		in.Release = filepath.Base(cwd)
	}
	if in.FailOn == "" {
		in.FailOn = "error"
		if cfg, err := loadConfig("", cwd, root); err == nil && cfg.FailOn != "" {
			in.FailOn = cfg.FailOn
		}
	}
	if render.Detect(cwd) == render.ToolHelm {
		in.Helm = true
		in.ValuesFiles, in.HelmValues, _ = cmp.ChartInputs(cwd)
	}
	var stderr bytes.Buffer
	if app.res != nil {
		// Rendered: offer its variables even when one without a value is
		// what stops substitution.
		in.Variables = cmp.Variables(app.res.Set.Objects())
	}
	if err != nil {
		in.RenderProblem = err.Error()
		fmt.Fprintf(&stderr, "routeguard: %v\n", err)
	} else {
		in.Weights = cmp.CurrentWeights(app.set.Objects())
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(cmp.Announce(in)); err != nil {
		return cmpFail(ExitError, "encoding the announcement: %v", err)
	}
	return cmpOutcome{stdout: out.Bytes(), stderr: stderr.Bytes(), code: ExitOK}
}

func runCMPDiscover(ctx context.Context, env *Env, args []string) int {
	fs := flagSet("cmp discover", "routeguard cmp discover", env)
	if code, done := parseFlags(fs, args); done {
		return code
	}
	return runBuffered(ctx, env, "cmp discover", func() cmpOutcome {
		cwd, err := env.Getwd()
		if err != nil {
			return cmpFail(ExitError, "working directory: %v", err)
		}
		if env.Getenv("ARGOCD_APP_PARAMETERS") != "" {
			// Argo CD sets it only for Applications with a spec.source.plugin block.
			return cmpOutcome{stdout: []byte("spec.source.plugin\n"), code: ExitOK}
		}
		match, err := cmp.Discover(cwd)
		if err != nil {
			return cmpFail(ExitError, "discover: %v", err)
		}
		if match == "" {
			return cmpOutcome{code: ExitOK}
		}
		return cmpOutcome{stdout: []byte(match + "\n"), code: ExitOK}
	})
}
