package cli

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/coverage"
	"github.com/routeguard/routeguard/internal/charts"
	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/flux"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
	"github.com/routeguard/routeguard/internal/report"
	"github.com/routeguard/routeguard/internal/version"
)

func newFluxCommand(env *Env) *cobra.Command {
	return group("flux", "Build Flux Kustomizations and HelmReleases as the controllers would, and analyze them",
		newFluxBuildCommand(env), newFluxDiffCommand(env))
}

type fluxBuildFlags struct {
	all          bool
	name         string
	namespace    string
	repoRoot     string
	strict       bool
	allowNetwork bool
	fetchCharts  bool
	chartCache   string
	sources      []string
	vars         []string
	varsFiles    []string
	kubeVersion  string
	output       string
	report       string
	analyze      bool
	verbose      bool
	analysis     analysisFlags
}

func newFluxBuildCommand(env *Env) *cobra.Command {
	var f fluxBuildFlags
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
is still built and analyzed. Prints the manifests (or, with --report, the
analysis) on stdout and a summary on stderr.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := "."
			if len(args) == 1 {
				path = args[0]
			}
			return runFluxBuild(cmd, env, &f, path)
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&f.all, "all", false, "build the whole tree under PATH (a cluster directory)")
	fs.StringVar(&f.name, "name", "", "print and analyze only what the Kustomization or HelmRelease of the tree with this name applies (the rest of the tree resolves its references)")
	fs.StringVarP(&f.namespace, "namespace", "n", "", "with --name: its namespace (default: any)")
	fs.StringVar(&f.repoRoot, "repo-root", "", "this checkout: the root of the GitRepository the cluster syncs, that spec.path is relative to (default: the git top level above PATH)")
	f.registerTree(cmd)
	fs.StringVarP(&f.output, "output", "o", "yaml", "manifest output format: "+strings.Join(manifestFormats, " or "))
	fs.StringVar(&f.report, "report", "", "print the analysis report on stdout in this format ("+strings.Join(report.Formats(), ", ")+") instead of the manifests")
	fs.BoolVar(&f.analyze, "analyze", true, "run the analysis (--analyze=false only builds)")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "print each Kustomization and HelmRelease as it is built, and the files left out of the scan, on stderr (on by default when stderr is a terminal)")
	f.analysis.register(cmd)
	cmd.Flags().Lookup("config").Usage = "path of the .routeguard.yaml with the analysis settings (default: PATH's directory's, else the repository root's)"
	return cmd
}

// registerTree registers the flags that say how the tree is built (build
// and diff).
func (f *fluxBuildFlags) registerTree(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.BoolVar(&f.strict, "strict", true, "fail on postBuild variables that are not set and have no default (Flux 2.9's default; --strict=false to turn off)")
	fs.BoolVar(&f.allowNetwork, "allow-network", false, "allow remote Kustomize bases and fetching charts from HelmRepositories and OCIRepositories")
	fs.BoolVar(&f.fetchCharts, "fetch-charts", false, "fetch charts from the HelmRepositories, OCIRepositories and chart dependencies the tree declares, and nothing else: remote Kustomize bases stay offline (what CI on pull requests uses)")
	fs.StringVar(&f.chartCache, "chart-cache", "", "directory that keeps fetched charts; without --allow-network or --fetch-charts only charts it holds are rendered")
	fs.StringArrayVar(&f.sources, "source", nil, "map a Flux source to a local directory: KIND/NAMESPACE/NAME=PATH (GitRepository, OCIRepository, Bucket, ExternalArtifact; repeatable; PATH . is this checkout)")
	fs.StringArrayVar(&f.vars, "var", nil, "value of a variable only the cluster holds (a substituteFrom Secret made by an ExternalSecret or SOPS): name=value (repeatable; wins over --vars-file)")
	fs.StringArrayVar(&f.varsFiles, "vars-file", nil, "YAML file of name: value variables only the cluster holds, e.g. a ConfigMap's data (repeatable, later wins)")
	fs.StringVar(&f.kubeVersion, "kube-version", "", "Kubernetes version for Helm capabilities (default: $KUBE_VERSION)")
}

func runFluxBuild(cmd *cobra.Command, env *Env, f *fluxBuildFlags, path string) error {
	opts, err := fluxOptions(env, f, path)
	if err != nil {
		return err
	}
	progress := newFluxProgress(env.Stderr, f.verbose || stderrIsTerminal(env))
	opts.Progress = progress.event
	res, err := flux.BuildTree(cmd.Context(), opts)
	if err != nil {
		return fail("%v", err)
	}
	progress.done(res)
	objects, ctxObjects, prior, nodes := res.Objects, (*manifest.Set)(nil), res.Findings, res.Nodes
	if f.name != "" {
		var in, rest *manifest.Set
		nodes, in, rest = res.Select(f.name, f.namespace)
		if nodes == nil {
			return fail("no Kustomization or HelmRelease named %q%s in the tree built from %s", f.name, inNamespace(f.namespace), path)
		}
		objects, ctxObjects, prior = in, rest, res.FindingsOf(nodes)
	}
	unapplied, err := fluxTransformsUnapplied(opts.RepoRoot, nodes)
	if err != nil {
		return fail("%v", err)
	}
	prior = append(prior, unapplied...)
	if f.analyze {
		prior = append(prior, res.NothingChecked(objects, nodes)...)
	}
	summary := res.Stats.Summary()
	if f.analyze {
		summary += fmt.Sprintf(", %d routing objects checked", coverage.Routing(objects))
	}
	fmt.Fprintf(env.Stderr, "routeguard: flux build: %s\n", summary)
	var notices []pipeline.Notice
	for _, n := range res.Notices {
		notices = append(notices, pipeline.Notice{Level: pipeline.Level(n.Level), Text: n.Text})
	}
	pipeline.WriteNotices(env.Stderr, notices)
	limit := 20
	if f.verbose {
		limit = 0
	}
	pipeline.WriteUnbuilt(env.Stderr, pipeline.FluxUnbuilt(res), limit)
	var stdout []byte
	code := ExitOK
	if !f.analyze {
		code, err = reportBuildFindings(env, prior)
		if err != nil {
			return err
		}
	} else {
		out, err := fluxAnalyze(cmd.Context(), env, f, opts, res, objects, ctxObjects, prior)
		if err != nil {
			return fail("%v", err)
		}
		pipeline.WriteNotices(env.Stderr, out.Notices)
		var rbuf bytes.Buffer
		w, err := report.New(cmp.Or(f.report, "text"), &rbuf, report.Options{Version: version.Get().Version})
		if err != nil {
			return fail("--report: %v", err)
		}
		if f.report != "" || len(out.Findings) > 0 {
			if err := report.WriteAll(w, out.Findings); err != nil {
				return fail("writing report: %v", err)
			}
		}
		if f.report != "" {
			stdout = rbuf.Bytes()
		} else {
			env.Stderr.Write(rbuf.Bytes())
		}
		switch {
		case out.PluginFailed:
			code = ExitError
		case out.Failed:
			code = ExitFindings
		}
	}
	if f.report == "" {
		if stdout, err = writeManifests(f.output, objects.Objects()); err != nil {
			return fail("%v", err)
		}
	}
	if err := writeStdout(env, stdout); err != nil {
		return err
	}
	return exitWith(code)
}

// fluxAnalyze runs the analysis of a built tree (objects, with ctxObjects
// as context and prior as the build's own findings).
func fluxAnalyze(ctx context.Context, env *Env, f *fluxBuildFlags, opts flux.Options, res *flux.Result, objects, ctxObjects *manifest.Set, prior []analysis.Finding) (*pipeline.Outcome, error) {
	appDir := opts.Path
	if fi, err := os.Stat(appDir); err == nil && !fi.IsDir() {
		appDir = filepath.Dir(appDir)
	}
	appDir, err := filepath.Abs(appDir)
	if err != nil {
		return nil, err
	}
	host, err := pluginHost(env, f.analysis.plugins)
	if err != nil {
		return nil, err
	}
	cluster, err := clusterOf(env, "", f.analysis.cluster)
	if err != nil {
		return nil, err
	}
	return pipeline.Run(ctx, pipeline.Request{
		Cluster: cluster, Objects: objects, AppDir: appDir, RepoRoot: opts.RepoRoot, ConfigFile: f.analysis.config,
		Overrides:      pipeline.Overrides{FailOn: f.analysis.failOn},
		Analyze:        true,
		Context:        &render.Options{AllowNetwork: f.allowNetwork, MaxFileBytes: manifest.DefaultMaxFileBytes},
		Plugins:        host,
		ContextObjects: ctxObjects,
		Unrendered:     res.Unrendered,
		FluxBuilt:      true,
		Prior:          prior,
	})
}

// fluxOptions turns the flags into the build's options.
func fluxOptions(env *Env, f *fluxBuildFlags, path string) (flux.Options, error) {
	var o flux.Options
	if !slices.Contains(manifestFormats, f.output) {
		return o, fail("--output must be %s, got %q", strings.Join(manifestFormats, " or "), f.output)
	}
	if f.report != "" && !f.analyze {
		return o, fail("--report needs the analysis; drop --analyze=false")
	}
	fi, err := os.Stat(path)
	if err != nil {
		return o, fail("%s: no such file or directory; give a cluster directory or a file holding Flux Kustomizations/HelmReleases", path)
	}
	if fi.IsDir() && !f.all && f.name == "" {
		return o, fail("%s is a directory: pass --all to build the tree under it, or --name NAME", path)
	}
	if f.all && f.name != "" {
		return o, fail("--all and --name exclude each other")
	}
	root := f.repoRoot
	if root == "" {
		if root, err = render.FindRepoRoot(path); err != nil {
			return o, fail("%v", err)
		}
	}
	vars, err := parseVars(f.varsFiles, f.vars)
	if err != nil {
		return o, fail("%v", err)
	}
	o = flux.Options{RepoRoot: root, Path: path, Strict: f.strict, AllowNetwork: f.allowNetwork, FetchCharts: f.fetchCharts, Vars: vars,
		KubeVersion: cmp.Or(f.kubeVersion, env.Getenv("KUBE_VERSION")), Sources: map[flux.SourceKey]string{}}
	for _, s := range f.sources {
		k, p, err := flux.ParseSource(s)
		if err != nil {
			return o, fail("%v", err)
		}
		o.Sources[k] = p
	}
	if f.chartCache != "" {
		if err := os.MkdirAll(f.chartCache, 0o755); err != nil {
			return o, fail("--chart-cache %s: %v", f.chartCache, err)
		}
		o.Charts = &charts.Cache{Dir: f.chartCache, Offline: !f.allowNetwork && !f.fetchCharts}
	}
	return o, nil
}

// reportBuildFindings prints the build's findings (default severities) on
// stderr when the analysis is off; exit 1 when one is an error.
func reportBuildFindings(env *Env, findings []analysis.Finding) (int, error) {
	if len(findings) == 0 {
		return ExitOK, nil
	}
	for i := range findings {
		if c, ok := analysis.LookupCode(findings[i].Code); ok && findings[i].Severity == 0 {
			findings[i].Severity = c.Severity
		}
	}
	w, err := report.New("text", env.Stderr, report.Options{Version: version.Get().Version})
	if err != nil {
		return ExitError, fail("%v", err)
	}
	if err := report.WriteAll(w, findings); err != nil {
		return ExitError, fail("writing report: %v", err)
	}
	for _, fd := range findings {
		if fd.Severity >= analysis.SeverityError {
			return ExitFindings, nil
		}
	}
	return ExitOK, nil
}

// WeightsVariable is the variable that states traffic weights in the
// one-line form ("reviews: blue 90, green 10") for `routeguard postrender`;
// in a Flux Kustomization's postBuild it reaches no one (RG0109).
const WeightsVariable = "routeguard_weights"

// fluxTransformsUnapplied reports the traffic transforms that would apply
// to the built nodes (the .routeguard.yaml of a node's spec.path or chart
// directory, else the repository root's; a Kustomization's
// routeguard_weights variable). kustomize-controller and helm-controller
// never run routeguard, so flux build prints what they apply, untransformed,
// and says so once per config file and once per variable (RG0109). Nodes
// come in the tree's order, so the findings are the same on every run.
func fluxTransformsUnapplied(root string, nodes []*flux.Node) ([]analysis.Finding, error) {
	var out []analysis.Finding
	seen := map[string]bool{}
	for _, n := range nodes {
		if n.Status != flux.Built {
			continue
		}
		cfg, err := pipeline.LoadConfig("", cmp.Or(n.Dir, root), root)
		if err != nil {
			return nil, err
		}
		if t := cfg.Transforms; t != nil && (len(t.Weights) > 0 || t.SyncWaves) && !seen[cfg.File] {
			seen[cfg.File] = true
			src := manifest.Source{File: repoRelative(root, cfg.File), Line: cfg.TransformsLine}
			out = append(out, analysis.Finding{Code: analysis.CodeFluxTransforms, Object: analysis.RefOf(n.Object), Source: src, Analyzer: "flux",
				Message: fmt.Sprintf("transforms (%s) of %s are not applied: %s applies what it builds and never runs routeguard, so the cluster gets the manifests as written, which this build prints; state them in the manifests, or keep transforms for apps routeguard renders (cmp generate, postrender)",
					transformsSummary(t), src.File, n)})
		}
		if _, ok := flux.SubstituteVariable(n.Object, WeightsVariable); ok {
			out = append(out, analysis.Finding{Code: analysis.CodeFluxTransforms, Object: analysis.RefOf(n.Object), Source: n.Object.Source, Analyzer: "flux",
				Message: fmt.Sprintf("spec.postBuild.substitute.%s sets no weights: kustomize-controller substitutes ${%s} where the manifests name it and never runs routeguard; write the weights in the manifests (a postBuild variable in each weight field works)", WeightsVariable, WeightsVariable)})
		}
	}
	return out, nil
}

// transformsSummary names what a transforms block sets ("weights for
// reviews, ratings; syncWaves").
func transformsSummary(t *config.Transforms) string {
	var parts []string
	if len(t.Weights) > 0 {
		svcs := make([]string, 0, len(t.Weights))
		for s := range t.Weights {
			svcs = append(svcs, s)
		}
		slices.Sort(svcs)
		parts = append(parts, "weights for "+strings.Join(svcs, ", "))
	}
	if t.SyncWaves {
		parts = append(parts, "syncWaves")
	}
	return strings.Join(parts, "; ")
}

// repoRelative is path relative to root with slashes, or path itself when
// it is not below root.
func repoRelative(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}

func inNamespace(ns string) string {
	if ns == "" {
		return ""
	}
	return " in namespace " + ns
}

func stderrIsTerminal(env *Env) bool {
	w := env.Stderr
	if u, ok := w.(interface{ Unwrap() io.Writer }); ok {
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	return ok && isTerminal(f)
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
	if !p.on {
		return
	}
	for _, s := range res.SkippedFiles {
		fmt.Fprintf(p.w, "routeguard: left out of the scan: %s\n", textCell(fmt.Sprint(s)))
	}
	fmt.Fprintf(p.w, "routeguard: built the tree in %s\n", time.Since(p.start).Round(time.Millisecond))
}
