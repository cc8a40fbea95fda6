package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
	"github.com/routeguard/routeguard/internal/report"
	"github.com/routeguard/routeguard/internal/resultcache"
)

// Analyze renders apps (or reads a stream on standard input, path "-") and
// analyzes each (routeguard analyze).
type Analyze struct {
	Render   RenderOptions
	Analysis AnalysisOptions
	// Output is the report format (report.Formats()); Color colours text.
	Output string
	Color  bool
	// Reports are more reports of the same findings (--report).
	Reports []report.Target
	// Cache keeps validation results between runs.
	Cache CacheOptions
	// Profile is a directory to write a CPU and a heap profile of the run
	// into (default: $ROUTEGUARD_PROFILE; none when both are empty).
	Profile string
}

// AnalyzeResult is the analysis of every path.
type AnalyzeResult struct {
	Verdict
	// Notices of every path, in order (also when Run fails on a later path).
	Notices []notice.Notice
	// Report holds every path's findings in the output format.
	Report []byte
	// Reports are the findings in each of Analyze.Reports.
	Reports []report.Rendered
}

// Run analyzes paths (none: ".").
func (a *Analyze) Run(ctx context.Context, env Env, paths []string) (*AnalyzeResult, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	if len(paths) > 1 && slices.Contains(paths, "-") {
		return nil, errors.New("'-' (stdin) cannot be combined with other paths")
	}
	w, err := newReport(a.Output, a.Color)
	if err != nil {
		return nil, fmt.Errorf("--output: %w", err)
	}
	stopProfile, err := startProfile(env, a.Profile)
	if err != nil {
		return nil, fmt.Errorf("--profile: %w", err)
	}
	defer stopProfile()
	res := &AnalyzeResult{}
	opts := a.Cache
	opts.Outside = append(opts.Outside[:len(opts.Outside):len(opts.Outside)], a.readRoots(env, paths)...)
	cache, notices := opts.open(env)
	res.Notices = append(res.Notices, notices...)
	defer func() { res.Notices = append(res.Notices, cache.close()...) }()
	for _, p := range paths {
		out, err := a.path(ctx, env, p, cache.cache)
		if err != nil {
			return res, err
		}
		res.Notices = append(res.Notices, out.Notices...)
		res.add(out)
	}
	if res.Report, err = w.all(res.Findings); err != nil {
		return res, err
	}
	if res.Reports, err = renderReports(a.Reports, res.Findings, a.Color); err != nil {
		return res, err
	}
	return res, nil
}

// readRoots are the directories the run reads, which the result cache must
// not be in: each path and its repository (--repo-root, else the git top
// level above it); for stdin, the repository its objects are checked
// against (--repo-root, else the working directory).
func (a *Analyze) readRoots(env Env, paths []string) []string {
	var roots []string
	for _, p := range paths {
		if p == "-" {
			root := a.Render.RepoRoot
			if root == "" && env.Getwd != nil {
				root, _ = env.Getwd()
			}
			roots = append(roots, root)
			continue
		}
		roots = append(roots, p)
		if a.Render.RepoRoot != "" {
			roots = append(roots, a.Render.RepoRoot)
		} else if root, err := render.FindRepoRoot(p); err == nil {
			roots = append(roots, root)
		}
	}
	return roots
}

// path renders (or reads from stdin) one input and takes it through the
// pipeline.
func (a *Analyze) path(ctx context.Context, env Env, path string, cache *resultcache.Cache) (*pipeline.Outcome, error) {
	opts, err := a.Render.options(env, path)
	if err != nil {
		return nil, err
	}
	an, err := a.Analysis.analysis(env, a.Render.KubeVersion, opts.Helm.Namespace)
	if err != nil {
		return nil, err
	}
	// A source directory may hold ${VAR} references that Flux substitutes
	// when it applies the objects (docs/validation.md).
	an.Cluster.SubstitutedOnApply = true
	an.ResultCache = cache
	in := pipeline.Input{ConfigFile: a.Analysis.ConfigFile}
	if path != "-" {
		// Chart dependencies are built as Argo CD builds them (file://
		// from the repository); those that cannot be had leave the chart's
		// own templates checked, never a failed analysis.
		opts.Helm.BuildDependencies, opts.Helm.SkipMissingDependencies = true, true
		opts.Helm.Dependencies = render.NoFetch("routeguard analyze does not fetch chart dependencies from chart repositories; vendor them under charts/ (helm dependency build), or check the Argo CD Application with routeguard argocd analyze --allow-network")
		_, out, err := renderApp(ctx, opts, in, pipeline.Changes{}, an)
		return out, err
	}
	if in.Objects, _, err = readObjects(env.Stdin, "<stdin>", opts.MaxFileBytes); err != nil {
		return nil, err
	}
	if env.Getwd != nil {
		in.AppDir, _ = env.Getwd()
	}
	in.RepoRoot = cmp.Or(a.Render.RepoRoot, in.AppDir)
	an.ContextPaths = contextPaths(opts)
	return runObjects(ctx, in, pipeline.Changes{}, an)
}
