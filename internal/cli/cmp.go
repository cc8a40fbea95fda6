package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/analysis"
	argocmp "github.com/routeguard/routeguard/internal/cmp"
	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
)

func newCMPCommand(env *Env) *cobra.Command {
	c := group("cmp", "Argo CD Config Management Plugin: generate, parameters, discover",
		newCMPGenerateCommand(env), newCMPParametersCommand(env), newCMPDiscoverCommand(env))
	c.Long = `Run by argocd-cmp-server (see cmp/plugin.yaml and docs/cmp.md) in the app's
directory inside its unpacked copy of the repository. Settings come from the
Argo CD build environment: ARGOCD_APP_*, KUBE_VERSION, KUBE_API_VERSIONS,
plugin env ARGOCD_ENV_{` + strings.Join(argocmp.KnownPluginEnv(), ",") + `} and parameters
(ARGOCD_APP_PARAMETERS).`
	return c
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
func runBuffered(ctx context.Context, env *Env, what string, work func() cmpOutcome) error {
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
		return exitWith(ExitError)
	}
	env.Stderr.Write(o.stderr)
	if err := writeStdout(env, o.stdout); err != nil {
		return err
	}
	return exitWith(o.code)
}

// cmpRequest reads the Argo CD build environment into a pipeline request
// for the working directory, confined to the unpacked repository: the
// Application's Helm options, substitution variables (Flux semantics),
// weights and failOn. It returns the build and settings too, for
// the report and the announcement.
func cmpRequest(env *Env) (pipeline.Request, *argocmp.Build, argocmp.Settings, error) {
	b, err := argocmp.FromEnv(env.Getenv, env.Environ)
	if err != nil {
		return pipeline.Request{}, nil, argocmp.Settings{}, err
	}
	s, err := b.Settings()
	if err != nil {
		return pipeline.Request{}, b, s, err
	}
	cwd, err := env.Getwd()
	if err != nil {
		return pipeline.Request{}, b, s, fmt.Errorf("working directory: %w", err)
	}
	rf := renderFlags{repoRoot: argocmp.RepoRoot(cwd, b.SourcePath), allowNetwork: s.AllowNetwork,
		maxFileMiB: manifest.DefaultMaxFileBytes >> 20, release: s.Release, values: s.ValuesFiles, set: s.HelmSet()}
	opts, err := rf.options(env, cwd)
	if err != nil {
		return pipeline.Request{}, b, s, err
	}
	host, err := pluginHost(env, "")
	if err != nil {
		return pipeline.Request{}, b, s, err
	}
	// KUBE_VERSION and KUBE_API_VERSIONS come from Argo CD.
	cluster, err := clusterOf(env, "", clusterFlags{})
	if err != nil {
		return pipeline.Request{}, b, s, err
	}
	req := pipeline.Request{
		Cluster:          cluster,
		Render:           &opts,
		Overrides:        pipeline.Overrides{FailOn: s.FailOn, Weights: s.Weights},
		DefaultNamespace: opts.Helm.Namespace,
		Plugins:          host,
	}
	if len(s.Variables) > 0 {
		req.Substitution = &pipeline.Substitution{Variables: s.Variables, Strict: true, Namespace: b.AppNamespace,
			Origin: "the Application's substitution-variables parameter"}
	}
	return req, b, s, nil
}

func newCMPParametersCommand(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "parameters",
		Short: "Print the parameter announcement (JSON) for the Argo CD UI",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			return runBuffered(ctx, env, "cmp parameters", func() cmpOutcome { return cmpParameters(ctx, env) })
		},
	}
}

// cmpParameters renders the app with its current parameters to find what to
// offer. An app that does not render still gets the knobs that do not
// depend on its content, so the UI can be used to fix its parameters.
func cmpParameters(ctx context.Context, env *Env) cmpOutcome {
	req, b, s, err := cmpRequest(env)
	var out *pipeline.Outcome
	if err == nil {
		out, err = pipeline.Run(ctx, req)
	}
	cwd, _ := env.Getwd()
	sourcePath := env.Getenv("ARGOCD_APP_SOURCE_PATH")
	if b != nil {
		sourcePath = b.SourcePath
	}
	root := argocmp.RepoRoot(cwd, sourcePath)
	in := argocmp.AnnounceInput{Release: env.Getenv("ARGOCD_APP_NAME"), FailOn: s.FailOn.String()}
	if req.Render != nil {
		in.Release = req.Render.Helm.Release
	}
	if in.Release == "" {
		in.Release = filepath.Base(cwd)
	}
	if in.FailOn == "" {
		in.FailOn = analysis.FailOnError.String()
		if cfg, err := pipeline.LoadConfig("", cwd, root); err == nil && cfg.FailOn != analysis.FailOnUnset {
			in.FailOn = cfg.FailOn.String()
		}
	}
	var stderr bytes.Buffer
	if render.Detect(cwd) == render.ToolHelm {
		in.Helm = true
		if r, err := confine.Open(root); err == nil {
			var cerr error
			if in.ValuesFiles, in.HelmValues, cerr = argocmp.ChartInputs(r, cwd); cerr != nil {
				fmt.Fprintf(&stderr, "routeguard: %s\n", errorText(cerr))
			}
			r.Close()
		}
	}
	if err != nil {
		in.RenderProblem = err.Error()
		fmt.Fprintf(&stderr, "routeguard: %s\n", errorText(err))
		// Rendered but not substituted: still offer the variables, since
		// one without a value may be what stops substitution.
		if req.Render != nil {
			r := *req.Render
			if res, rerr := render.Render(ctx, r); rerr == nil {
				in.Variables = argocmp.Variables(res.Set.Objects())
			}
		}
	} else {
		in.Variables = argocmp.Variables(out.Set.Objects())
		in.Weights = argocmp.CurrentWeights(out.Set)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(argocmp.Announce(in)); err != nil {
		return cmpFail(ExitError, "encoding the announcement: %v", err)
	}
	return cmpOutcome{stdout: buf.Bytes(), stderr: stderr.Bytes(), code: ExitOK}
}

func newCMPDiscoverCommand(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "discover",
		Short: "Print the marker (.routeguard-cmp) that opts this app into the plugin (the opt-in discover.find.command)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBuffered(cmd.Context(), env, "cmp discover", func() cmpOutcome {
				cwd, err := env.Getwd()
				if err != nil {
					return cmpFail(ExitError, "working directory: %v", err)
				}
				if env.Getenv("ARGOCD_APP_PARAMETERS") != "" {
					// Argo CD sets it only for Applications with a spec.source.plugin block.
					return cmpOutcome{stdout: []byte("spec.source.plugin\n"), code: ExitOK}
				}
				match, err := argocmp.Discover(cwd)
				if err != nil {
					return cmpFail(ExitError, "discover: %v", err)
				}
				if match == "" {
					return cmpOutcome{code: ExitOK}
				}
				return cmpOutcome{stdout: []byte(match + "\n"), code: ExitOK}
			})
		},
	}
}
