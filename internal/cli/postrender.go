package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/action"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
)

func newPostrenderCommand(env *Env) *cobra.Command {
	a := &action.Postrender{}
	var logFile string
	var reports reportFlags
	cmd := &cobra.Command{
		Use:   "postrender [flags] < rendered.yaml > final.yaml",
		Short: "Helm post-renderer: substitute variables, apply traffic transforms, gate on the analysis (stdin -> stdout)",
		Long: `Helm's post-renderer contract: manifests on stdin, manifests on stdout, a
non-zero exit (and nothing on stdout) on failure.
  Helm 3: helm install app ./chart --post-renderer routeguard --post-renderer-args postrender
  Helm 4: helm plugin install ./plugins/postrender; helm install app ./chart --post-renderer routeguard
Variables are substituted with Flux's postBuild semantics; the traffic
transforms of .routeguard.yaml (or --weights) run next; then the analysis.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			if logFile != "" {
				lf, cerr := os.Create(logFile)
				if cerr != nil {
					return fail("--log-file: %v", cerr)
				}
				defer lf.Close()
				e := *env
				e.Stderr = io.MultiWriter(env.Stderr, lf)
				env = &e
				// Errors are printed by Run on the real stderr; copy them here.
				defer func() {
					var ee *exitError
					if errors.As(err, &ee) && ee.err != nil {
						fmt.Fprintf(lf, "routeguard: %v\n", ee.err)
					}
				}()
			}
			targets, err := reports.targets("", "")
			if err != nil {
				return err
			}
			a.Reports = targets
			res, err := a.Run(cmd.Context(), env.action())
			if err != nil {
				return fail("%v", err)
			}
			if a.Analyze {
				// Findings go to stderr: stdout carries only manifests.
				notice.Write(env.Stderr, res.Notices)
				env.Stderr.Write(res.Report)
				if _, err := writeReports(env, res.Reports, !res.PluginFailed); err != nil {
					return err
				}
				if res.PluginFailed {
					return exitWith(ExitError)
				}
				if res.Failed {
					fmt.Fprintf(env.Stderr, "routeguard: post-render refused: findings at or above %s (see above); fix them or set --fail-on\n", res.FailOn)
					return exitWith(ExitFindings)
				}
			}
			return writeStdout(env, res.Manifests)
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVar(&a.Vars, "var", nil, "substitution variable name=value (repeatable; wins over --vars-file)")
	fs.StringArrayVar(&a.VarsFiles, "vars-file", nil, "YAML file of name: value variables, e.g. a ConfigMap's data (repeatable, later wins)")
	fs.BoolVar(&a.Strict, "strict", true, "fail on variables that are not set and have no default (--strict=false to turn off)")
	fs.StringVar(&a.Weights, "weights", "", `traffic weights, e.g. "reviews: blue 90, green 10" (override transforms.weights of the config per service)`)
	fs.BoolVar(&a.SyncWaves, "sync-waves", false, "add Argo CD sync waves (CRDs, Namespaces, Gateways, routes) where none is set")
	fs.StringVarP(&a.Namespace, "namespace", "n", "", "namespace of objects that name none, for the analysis (default: $HELM_NAMESPACE, else \"default\")")
	fs.BoolVar(&a.Analyze, "analyze", true, "run the analysis as a gate (--analyze=false only transforms)")
	fs.Int64Var(&a.MaxFileMiB, "max-file-size", manifest.DefaultMaxFileBytes>>20, "largest input to read, in MiB")
	fs.StringVar(&logFile, "log-file", "", "also write errors and findings to this file (Helm 4 discards a post-renderer plugin's stderr)")
	registerAnalysis(cmd, &a.Analysis)
	reports.registerFiles(cmd)
	fs.Lookup("config").Usage = "path of the .routeguard.yaml (default: the working directory's, else the git top level's)"
	return cmd
}
