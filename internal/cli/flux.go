package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/action"
	"github.com/routeguard/routeguard/internal/flux"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/printable"
	"github.com/routeguard/routeguard/internal/report"
)

func newFluxCommand(env *Env) *cobra.Command {
	return group("flux", "Build Flux Kustomizations and HelmReleases as the controllers would, and analyze them",
		newFluxBuildCommand(env), newFluxDiffCommand(env))
}

func newFluxBuildCommand(env *Env) *cobra.Command {
	a := &action.FluxBuild{}
	var verbose bool
	var reports reportFlags
	var pf progressFlag
	cmd := &cobra.Command{
		Use:   "build [PATH] [--all | --name NAME [--namespace NS]]",
		Short: "Build the whole tree Flux would apply, and analyze it",
		Long: `Builds what kustomize-controller and helm-controller would apply, starting at
PATH: a cluster directory (built as its sync Kustomization builds it) or a file
holding Kustomizations/HelmReleases. Every Kustomization and HelmRelease the
build produces is built in turn, from the object as the cluster would hold it:
Kustomize build of spec.path and postBuild substitution with Flux's own code,
HelmReleases with charts from this repository, from HelmRepositories and
OCIRepositories (--fetch-charts, --chart-cache), their values and
post-renderers. A Flux object that cannot be built is a finding; everything else
is still built and analyzed. Prints the manifests (or, with --report FORMAT,
the analysis) on stdout and a summary on stderr; --report FORMAT=FILE writes
reports to files from the same run.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			targets, err := reports.targets("", "")
			if err != nil {
				return err
			}
			a.Reports = targets
			// -v prints a line per node (a log); else a terminal shows one
			// progress line (internal/progress).
			progress := newFluxProgress(env.Stderr, verbose)
			meter, err := pf.meter(env, "flux build")
			if err != nil {
				return err
			}
			if verbose {
				meter = nil
			}
			a.Progress = func(e flux.Event) {
				progress.event(e)
				nodeDone(meter, e)
			}
			res, err := a.Run(cmd.Context(), env.action(), pathArg(args))
			meter.Clear()
			if res != nil {
				progress.done(res.Tree)
				if res.Objects != nil {
					fmt.Fprintf(env.Stderr, "routeguard: flux build: %s\n", res.Summary)
					notice.Write(env.Stderr, res.Tree.Notices)
					limit := 20
					if verbose {
						limit = 0
					}
					notice.WriteUnbuilt(env.Stderr, res.Tree.Unbuilt(), limit)
				}
				notice.Write(env.Stderr, res.Notices)
			}
			if err != nil {
				return fail("%v", err)
			}
			env.Stderr.Write(res.Report)
			stdout, err := writeReports(env, res.Reports, !res.PluginFailed)
			if err != nil {
				return err
			}
			if stdout == nil {
				stdout = res.Manifests
			}
			sum := report.Summarize(res.Findings)
			meter.Findings("", sum.Errors, sum.Warnings, sum.Infos)
			meter.Finish()
			if err := writeStdout(env, stdout); err != nil {
				return err
			}
			return exitWith(verdictCode(res.Verdict))
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&a.All, "all", false, "build the whole tree under PATH (a cluster directory)")
	fs.StringVar(&a.Name, "name", "", "print and analyze only what the Kustomization or HelmRelease of the tree with this name applies (the rest of the tree resolves its references)")
	fs.StringVarP(&a.Namespace, "namespace", "n", "", "with --name: its namespace (default: any)")
	fs.StringVar(&a.RepoRoot, "repo-root", "", "this checkout: the root of the GitRepository the cluster syncs, that spec.path is relative to (default: the git top level above PATH)")
	registerFluxTree(cmd, &a.Tree)
	fs.StringVarP(&a.Output, "output", "o", "yaml", "manifest output format: "+strings.Join(action.ManifestFormats, " or "))
	reports.register(cmd, "the manifests")
	pf.register(cmd)
	fs.BoolVar(&a.Analyze, "analyze", true, "run the analysis (--analyze=false only builds)")
	fs.BoolVarP(&verbose, "verbose", "v", false, "print each Kustomization and HelmRelease as it is built, and the files left out of the scan, on stderr (without it a terminal shows one progress line: --progress)")
	registerAnalysis(cmd, &a.Analysis)
	cmd.Flags().Lookup("config").Usage = "path of the .routeguard.yaml with the analysis settings (default: PATH's directory's, else the repository root's)"
	return cmd
}

// registerFluxTree binds the flags that say how the tree is built (build
// and diff).
func registerFluxTree(cmd *cobra.Command, t *action.FluxTree) {
	fs := cmd.Flags()
	t.Strict = flux.StrictAuto
	fs.Var(strictFlag{&t.Strict}, "strict", "fail on postBuild variables that are not set and have no default: true (Flux 2.9's default), false (an empty string, as before 2.9), or auto: as the Flux the tree installs does (kustomize-controller's StrictPostBuildSubstitutions feature gate, flux bootstrap's gotk-components.yaml, a FluxInstance or flux-instance chart), strict when the tree names none")
	fs.Lookup("strict").NoOptDefVal = "true"
	fs.BoolVar(&t.AllowNetwork, "allow-network", false, "allow remote Kustomize bases and fetching charts from HelmRepositories and OCIRepositories")
	fs.BoolVar(&t.FetchCharts, "fetch-charts", false, "fetch charts from the HelmRepositories, OCIRepositories and chart dependencies the tree declares, and nothing else: remote Kustomize bases stay offline (what CI on pull requests uses)")
	fs.StringVar(&t.ChartCache, "chart-cache", "", "directory that keeps fetched charts; without --allow-network or --fetch-charts only charts it holds are rendered")
	fs.StringArrayVar(&t.Sources, "source", nil, "map a Flux source to a local directory: KIND/NAMESPACE/NAME=PATH (GitRepository, OCIRepository, Bucket, ExternalArtifact; repeatable; PATH . is this checkout)")
	fs.StringArrayVar(&t.Vars, "var", nil, "value of a variable only the cluster holds (a substituteFrom Secret made by an ExternalSecret or SOPS): name=value (repeatable; wins over --vars-file)")
	fs.StringArrayVar(&t.VarsFiles, "vars-file", nil, "YAML file of name: value variables only the cluster holds, e.g. a ConfigMap's data (repeatable, later wins)")
	fs.StringVar(&t.KubeVersion, "kube-version", "", "Kubernetes version for Helm capabilities (default: $KUBE_VERSION)")
}

// fluxProgress prints one line per finished Kustomization or HelmRelease
// (status, time) and, at the end, the files the scan left out.
type fluxProgress struct {
	w        io.Writer
	on       bool
	mu       sync.Mutex
	finished int
	start    time.Time
}

func newFluxProgress(w io.Writer, on bool) *fluxProgress {
	return &fluxProgress{w: w, on: on, start: time.Now()}
}

func (p *fluxProgress) event(e flux.Event) {
	if !p.on || e.Phase != flux.Finished {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finished++
	line := fmt.Sprintf("routeguard: [%d] %s %s in %s", p.finished, textCell(e.Node.String()), e.Node.Status, e.Duration.Round(time.Millisecond))
	if e.Node.Reason != "" {
		line += ": " + textCell(e.Node.Reason)
	}
	fmt.Fprintln(p.w, line)
}

func (p *fluxProgress) done(res *flux.Result) {
	if !p.on || res == nil {
		return
	}
	for _, s := range res.SkippedFiles {
		fmt.Fprintf(p.w, "routeguard: left out of the scan: %s\n", textCell(fmt.Sprint(s)))
	}
	fmt.Fprintf(p.w, "routeguard: built the tree in %s\n", time.Since(p.start).Round(time.Millisecond))
}

// textCell is repository text on one line of a text output: escaped and
// shortened (printable).
func textCell(s string) string { return printable.Line(printable.Cut(s, 2000)) }
