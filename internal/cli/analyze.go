package cli

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/guard"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
	"github.com/routeguard/routeguard/internal/report"
	"github.com/routeguard/routeguard/internal/version"
)

// analysisFlags are the flags of every command that runs the analysis.
type analysisFlags struct {
	failOn  analysis.FailOn
	config  string
	plugins string
	cluster clusterFlags
}

func (f *analysisFlags) register(cmd *cobra.Command) {
	cmd.Flags().Var(&failOnFlag{&f.failOn}, "fail-on", "lowest severity that fails the run: "+strings.Join(analysis.FailOnNames, ", ")+" (default: failOn of .routeguard.yaml, else error)")
	cmd.Flags().StringVar(&f.config, "config", "", "path of the .routeguard.yaml to use (default: the app's, else the repository root's)")
	cmd.Flags().StringVar(&f.cluster.crdDir, "crd-dir", "", "validate custom resources against the CRDs in this directory (the cluster's; they take precedence over the bundled ones)")
	cmd.Flags().StringVar(&f.cluster.gatewayAPIChannel, "gateway-api-channel", "", "Gateway API channel of the cluster's CRDs: standard or experimental (default: not known; what only experimental accepts is a warning)")
	cmd.Flags().StringVar(&f.plugins, "plugins", "", "the operator's plugin catalog: which plugin binaries may run, pinned by sha256 (default: $"+PluginsEnv+"; see docs/plugins.md)")
}

// failOnFlag parses --fail-on once, into its typed value.
type failOnFlag struct{ v *analysis.FailOn }

func (f *failOnFlag) String() string { return f.v.String() }
func (f *failOnFlag) Type() string   { return "severity" }
func (f *failOnFlag) Set(s string) error {
	v, err := analysis.ParseFailOn(s)
	if err != nil {
		return err
	}
	*f.v = v
	return nil
}

func newAnalyzeCommand(env *Env) *cobra.Command {
	var rf renderFlags
	var af analysisFlags
	var output string
	cmd := &cobra.Command{
		Use:   "analyze [PATH...]",
		Short: "Render apps and report what would break their traffic routing",
		Long: `Renders each PATH like 'routeguard render' (or reads a YAML/JSON stream on
stdin with '-') and runs every analyzer. Settings come from .routeguard.yaml in
the app directory or the repository root (or --config).

Prints the report on stdout; exit 1 when a finding reaches the failing severity.`,
		Example: "  routeguard analyze apps/routing/gateways\n  routeguard render apps/shop | routeguard analyze -o sarif -",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"."}
			}
			if len(args) > 1 && slices.Contains(args, "-") {
				return fail("'-' (stdin) cannot be combined with other paths")
			}
			var buf bytes.Buffer
			w, err := report.New(output, &buf, report.Options{Color: env.IsTerminal && output == "text", Version: version.Get().Version})
			if err != nil {
				return fail("--output: %v", err)
			}
			failed, pluginFailed := false, false
			for _, p := range args {
				out, err := analyzePath(cmd, env, &rf, &af, p)
				if err != nil {
					return fail("%v", err)
				}
				pipeline.WriteNotices(env.Stderr, out.Notices)
				for _, f := range out.Findings {
					if err := w.Write(f); err != nil {
						return fail("writing report: %v", err)
					}
				}
				failed = failed || out.Failed
				pluginFailed = pluginFailed || out.PluginFailed
			}
			// The whole report is built before anything reaches stdout.
			if err := w.Flush(); err != nil {
				return fail("writing report: %v", err)
			}
			if err := writeStdout(env, buf.Bytes()); err != nil {
				return err
			}
			switch {
			case pluginFailed:
				// The report keeps every other analyzer's findings; the
				// plugin's error is on stderr (plugins.onError: fail).
				return exitWith(ExitError)
			case failed:
				return exitWith(ExitFindings)
			}
			return nil
		},
	}
	rf.register(cmd.Flags())
	af.register(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "text", "report format: "+strings.Join(report.Formats(), ", "))
	return cmd
}

// analyzePath renders (or reads from stdin) one input and takes it through
// the pipeline.
func analyzePath(cmd *cobra.Command, env *Env, rf *renderFlags, af *analysisFlags, path string) (*pipeline.Outcome, error) {
	opts, err := rf.options(env, path)
	if err != nil {
		return nil, err
	}
	host, err := pluginHost(env, af.plugins)
	if err != nil {
		return nil, err
	}
	cluster, err := clusterOf(env, rf.kubeVersion, af.cluster)
	if err != nil {
		return nil, err
	}
	// A source directory may hold ${VAR} references that Flux substitutes
	// when it applies the objects (docs/validation.md).
	cluster.SubstitutedOnApply = true
	req := pipeline.Request{
		Cluster:          cluster,
		ConfigFile:       af.config,
		Overrides:        pipeline.Overrides{FailOn: af.failOn},
		Analyze:          true,
		DefaultNamespace: opts.Helm.Namespace,
		Plugins:          host,
	}
	if path == "-" {
		if req.Objects, err = readStdin(env, opts.MaxFileBytes); err != nil {
			return nil, err
		}
		if env.Getwd != nil {
			req.AppDir, _ = env.Getwd()
		}
		req.RepoRoot = cmp.Or(rf.repoRoot, req.AppDir)
		req.Context = &opts
	} else {
		// Chart dependencies are built as Argo CD builds them (file://
		// from the repository); those that cannot be had leave the chart's
		// own templates checked, never a failed analysis.
		opts.Helm.BuildDependencies, opts.Helm.SkipMissingDependencies = true, true
		opts.Helm.Dependencies = render.NoFetch("routeguard analyze does not fetch chart dependencies from chart repositories; vendor them under charts/ (helm dependency build), or check the Argo CD Application with routeguard argocd analyze --allow-network")
		req.Render = &opts
	}
	return pipeline.Run(cmd.Context(), req)
}

// readStdin decodes a YAML/JSON stream from stdin, up to limit bytes.
func readStdin(env *Env, limit int64) (*manifest.Set, error) {
	data, err := readLimited(env.Stdin, "<stdin>", limit)
	if err != nil {
		return nil, err
	}
	objs, err := manifest.Decode("<stdin>", data)
	if err != nil {
		return nil, err
	}
	set := manifest.NewSet()
	if err := set.AddAll(objs); err != nil {
		return nil, err
	}
	return set, nil
}

// readLimited reads r whole, refusing more than limit bytes.
func readLimited(r io.Reader, name string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d MiB; raise --max-file-size if this is intended", name, limit>>20)
	}
	guard.AddInput(len(data))
	return data, nil
}
