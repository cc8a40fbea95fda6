package action

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/coverage"
	"github.com/routeguard/routeguard/internal/charts"
	"github.com/routeguard/routeguard/internal/flux"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
	"github.com/routeguard/routeguard/internal/report"
)

// FluxTree says how a Flux tree is built (flux build and flux diff).
type FluxTree struct {
	// Strict says whether postBuild variables that are not set and have no
	// default fail: on (Flux 2.9's default), off (an empty string, as
	// before 2.9), or auto, from the Flux version the tree installs.
	Strict       flux.Strictness
	AllowNetwork bool
	// FetchCharts fetches the charts the tree declares, and nothing else
	// (remote Kustomize bases stay offline).
	FetchCharts bool
	// ChartCache keeps fetched charts; without AllowNetwork or FetchCharts
	// only the charts it holds are rendered.
	ChartCache string
	// Sources map Flux sources to local directories: KIND/NAMESPACE/NAME=PATH.
	Sources []string
	// Vars (name=value, winning) and VarsFiles are the values of variables
	// only the cluster holds.
	Vars, VarsFiles []string
	// KubeVersion is Helm's capability (default $KUBE_VERSION).
	KubeVersion string
}

// FluxBuild builds the tree Flux would apply and analyzes it (routeguard
// flux build).
type FluxBuild struct {
	// All builds the whole tree under a directory; Name (in Namespace, ""
	// any) builds the tree and keeps what that Kustomization or HelmRelease
	// applies.
	All             bool
	Name, Namespace string
	// RepoRoot is the checkout spec.path is relative to (default: the git
	// top level above the path).
	RepoRoot string
	Tree     FluxTree
	// Output is the manifest format.
	Output string
	// Reports are the reports of the findings (--report); the one for
	// standard output replaces the manifests there.
	Reports []report.Target
	// Analyze runs the analysis (false: only build).
	Analyze  bool
	Analysis AnalysisOptions
	// Progress is told when each Kustomization and HelmRelease starts and
	// ends.
	Progress func(flux.Event)
}

// FluxBuildResult is the build and its analysis.
type FluxBuildResult struct {
	// Tree is the built tree (set once the build ran, also when Run fails
	// later).
	Tree *flux.Result
	// Objects are the objects printed and analyzed (the selection of
	// Name); set once they are chosen, also when the analysis fails.
	Objects *manifest.Set
	// Summary says what was built (and, with Analyze, how many routing
	// objects were checked); set with Objects.
	Summary string
	Verdict
	// Notices of the analysis (the build's are Tree.Notices).
	Notices []notice.Notice
	// Report holds the findings as text when there are findings (for
	// stderr), unless a report goes to standard output.
	Report []byte
	// Reports are the findings in each of FluxBuild.Reports.
	Reports []report.Rendered
	// Manifests are the objects in the Output format, unless a report goes
	// to standard output.
	Manifests []byte
}

// Run builds from path (a cluster directory or a file of Flux objects).
func (a *FluxBuild) Run(ctx context.Context, env Env, path string) (*FluxBuildResult, error) {
	opts, err := a.options(env, path)
	if err != nil {
		return nil, err
	}
	opts.Progress = a.Progress
	tree, err := flux.BuildTree(ctx, opts)
	if err != nil {
		return nil, err
	}
	res := &FluxBuildResult{Tree: tree}
	objects, ctxObjects, prior, nodes := tree.Objects, (*manifest.Set)(nil), tree.Findings, tree.Nodes
	if a.Name != "" {
		var in, rest *manifest.Set
		nodes, in, rest = tree.Select(a.Name, a.Namespace)
		if nodes == nil {
			return res, fmt.Errorf("no Kustomization or HelmRelease named %q%s in the tree built from %s", a.Name, inNamespace(a.Namespace), path)
		}
		objects, ctxObjects, prior = in, rest, tree.FindingsOf(nodes)
	}
	unapplied, err := fluxTransformsUnapplied(opts.RepoRoot, nodes)
	if err != nil {
		return res, err
	}
	prior = append(prior, unapplied...)
	res.Summary = tree.Stats.Summary()
	if a.Analyze {
		prior = append(prior, tree.NothingChecked(objects, nodes)...)
		res.Summary += fmt.Sprintf(", %d routing objects checked", coverage.Routing(objects))
	}
	res.Objects = objects
	if !a.Analyze {
		res.Verdict = buildVerdict(prior)
	} else {
		out, err := a.analyze(ctx, env, opts, tree, objects, ctxObjects, prior)
		if err != nil {
			return res, err
		}
		res.Notices = out.Notices
		res.add(out)
	}
	if res.Reports, err = renderReports(a.Reports, res.Findings, false); err != nil {
		return res, err
	}
	if _, onStdout := report.StdoutTarget(a.Reports); onStdout {
		return res, nil
	}
	if len(res.Findings) > 0 {
		w, err := newReport("text", false)
		if err != nil {
			return res, err
		}
		if res.Report, err = w.all(res.Findings); err != nil {
			return res, err
		}
	}
	if res.Manifests, err = encodeManifests(a.Output, objects.Objects()); err != nil {
		return res, err
	}
	return res, nil
}

// buildVerdict is the verdict on the build's own findings when the
// analysis is off: default severities, failed by an error.
func buildVerdict(findings []analysis.Finding) Verdict {
	v := Verdict{Findings: findings, FailOn: analysis.FailOnError}
	for i := range findings {
		if c, ok := analysis.LookupCode(findings[i].Code); ok && findings[i].Severity == 0 {
			findings[i].Severity = c.Severity
		}
		v.Failed = v.Failed || findings[i].Severity >= analysis.SeverityError
	}
	return v
}

// analyze runs the analysis of a built tree (objects, with ctxObjects as
// context and prior as the build's own findings).
func (a *FluxBuild) analyze(ctx context.Context, env Env, opts flux.Options, res *flux.Result, objects, ctxObjects *manifest.Set, prior []analysis.Finding) (*pipeline.Outcome, error) {
	appDir := opts.Path
	if fi, err := os.Stat(appDir); err == nil && !fi.IsDir() {
		appDir = filepath.Dir(appDir)
	}
	appDir, err := filepath.Abs(appDir)
	if err != nil {
		return nil, err
	}
	an, err := a.Analysis.analysis(env, "", "")
	if err != nil {
		return nil, err
	}
	an.ContextPaths = contextPaths(render.Options{AllowNetwork: a.Tree.AllowNetwork, MaxFileBytes: manifest.DefaultMaxFileBytes})
	an.ContextObjects, an.Unrendered, an.Prior = ctxObjects, res.Unrendered, prior
	// The tree is built: what its Kustomizations and HelmReleases install
	// is among the objects, or in res.Unrendered.
	return pipeline.Run(ctx, pipeline.Input{Objects: objects, AppDir: appDir, RepoRoot: opts.RepoRoot, ConfigFile: a.Analysis.ConfigFile},
		pipeline.Changes{}, *an)
}

// options turns the options into the build's.
func (a *FluxBuild) options(env Env, path string) (flux.Options, error) {
	var o flux.Options
	if err := checkManifestFormat(a.Output); err != nil {
		return o, err
	}
	if len(a.Reports) > 0 && !a.Analyze {
		return o, fmt.Errorf("--report needs the analysis; drop --analyze=false")
	}
	fi, err := os.Stat(path)
	if err != nil {
		return o, fmt.Errorf("%s: no such file or directory; give a cluster directory or a file holding Flux Kustomizations/HelmReleases", path)
	}
	if fi.IsDir() && !a.All && a.Name == "" {
		return o, fmt.Errorf("%s is a directory: pass --all to build the tree under it, or --name NAME", path)
	}
	if a.All && a.Name != "" {
		return o, fmt.Errorf("--all and --name exclude each other")
	}
	root := a.RepoRoot
	if root == "" {
		if root, err = render.FindRepoRoot(path); err != nil {
			return o, err
		}
	}
	t := a.Tree
	vars, err := parseVars(t.VarsFiles, t.Vars)
	if err != nil {
		return o, err
	}
	o = flux.Options{RepoRoot: root, Path: path, Strict: t.Strict, AllowNetwork: t.AllowNetwork, FetchCharts: t.FetchCharts, Vars: vars,
		KubeVersion: cmp.Or(t.KubeVersion, env.Getenv("KUBE_VERSION")), Sources: map[flux.SourceKey]string{}}
	for _, s := range t.Sources {
		k, p, err := flux.ParseSource(s)
		if err != nil {
			return o, err
		}
		o.Sources[k] = p
	}
	if t.ChartCache != "" {
		if err := os.MkdirAll(t.ChartCache, 0o755); err != nil {
			return o, fmt.Errorf("--chart-cache %s: %v", t.ChartCache, err)
		}
		o.Charts = &charts.Cache{Dir: t.ChartCache, Offline: !t.AllowNetwork && !t.FetchCharts}
	}
	return o, nil
}

func inNamespace(ns string) string {
	if ns == "" {
		return ""
	}
	return " in namespace " + ns
}
