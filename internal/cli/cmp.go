package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/action"
	"github.com/routeguard/routeguard/internal/argocdcmp"
)

func newCMPCommand(env *Env) *cobra.Command {
	c := group("cmp", "Argo CD Config Management Plugin: generate, parameters, discover",
		newCMPGenerateCommand(env), newCMPParametersCommand(env), newCMPDiscoverCommand(env))
	c.Long = `Run by argocd-cmp-server (see cmp/plugin.yaml and docs/cmp.md) in the app's
directory inside its unpacked copy of the repository. Settings come from the
Argo CD build environment: ARGOCD_APP_*, KUBE_VERSION, KUBE_API_VERSIONS,
plugin env ARGOCD_ENV_{` + strings.Join(argocdcmp.KnownPluginEnv(), ",") + `} and parameters
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

func newCMPParametersCommand(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "parameters",
		Short: "Print the parameter announcement (JSON) for the Argo CD UI",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			return runBuffered(ctx, env, "cmp parameters", func() cmpOutcome {
				res := action.CMPParameters{}.Run(ctx, env.action())
				var stderr bytes.Buffer
				for _, p := range res.Problems {
					fmt.Fprintf(&stderr, "routeguard: %s\n", errorText(p))
				}
				var buf bytes.Buffer
				enc := json.NewEncoder(&buf)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				if err := enc.Encode(res.Announcement); err != nil {
					return cmpFail(ExitError, "encoding the announcement: %v", err)
				}
				return cmpOutcome{stdout: buf.Bytes(), stderr: stderr.Bytes(), code: ExitOK}
			})
		},
	}
}

func newCMPDiscoverCommand(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "discover",
		Short: "Print the marker (.routeguard-cmp) that opts this app into the plugin (the opt-in discover.find.command)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBuffered(cmd.Context(), env, "cmp discover", func() cmpOutcome {
				match, err := action.CMPDiscover{}.Run(env.action())
				switch {
				case err != nil:
					return cmpFail(ExitError, "%v", err)
				case match == "":
					return cmpOutcome{code: ExitOK}
				}
				return cmpOutcome{stdout: []byte(match + "\n"), code: ExitOK}
			})
		},
	}
}
