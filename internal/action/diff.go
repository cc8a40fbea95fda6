package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/codeowners"
	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/manifestdiff"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
	"github.com/routeguard/routeguard/internal/routediff"
)

// DiffOptions are the options of every diff: the two revisions compared
// ("" base: the merge base of HEAD and the default branch; "" head: the
// work tree), the syntax of the CODEOWNERS file (github or gitlab; "":
// the host its location and sections say), what the review shows
// (routing, manifests or both; "": routing) and the JSON pointers the
// manifest diff leaves out ("/path" or "Kind:/path").
type DiffOptions struct {
	Base, Head     string
	CodeOwners     string
	Review         string
	IgnorePointers []string
	// AllHeadFindings analyzes at head the paths the change leaves alone
	// too, so that the result's HeadFindings are every finding of head
	// (what --report writes).
	AllHeadFindings bool
	// Progress, when set, is told which directory each revision is built
	// from, then of each thing built there.
	Progress DiffProgress
}

// DiffProgress hears how a diff goes (progress on a terminal).
type DiffProgress interface {
	// Revisions names the directories the two revisions are built from,
	// before either is built.
	Revisions(base, head routediff.Rev, baseRoot, headRoot string)
	// Done says one item (an app path, Application, Kustomization or
	// HelmRelease) of the revision at root is built, with its outcome.
	Done(root, kind, name, status string)
}

// done tells the progress of one item of the revision at root.
func (r DiffOptions) done(root, kind, name, status string) {
	if r.Progress != nil {
		r.Progress.Done(root, kind, name, status)
	}
}

// compare runs routediff for paths with opts (Analyze or Build set).
func (r DiffOptions) compare(ctx context.Context, env Env, paths []string, opts routediff.Options) (*routediff.Result, error) {
	if slices.Contains(paths, "-") {
		return nil, errors.New("diff reads revisions from git, not stdin; name app paths")
	}
	opts.Dir, opts.Base, opts.Head, opts.Paths = env.workDir(), r.Base, r.Head, paths
	opts.AllHeadFindings = r.AllHeadFindings
	if r.Progress != nil {
		opts.Revisions = r.Progress.Revisions
	}
	switch r.CodeOwners {
	case "", string(codeowners.GitHub), string(codeowners.GitLab):
		opts.CodeOwners = codeowners.Syntax(r.CodeOwners)
	default:
		return nil, fmt.Errorf("--codeowners must be github or gitlab, got %q", r.CodeOwners)
	}
	opts.Review = routediff.Review(cmp.Or(r.Review, string(routediff.ReviewRouting)))
	if !slices.Contains(routediff.Reviews, string(opts.Review)) {
		return nil, fmt.Errorf("--diff must be %s, got %q", strings.Join(routediff.Reviews, ", "), r.Review)
	}
	if len(r.IgnorePointers) > 0 && opts.Review == routediff.ReviewRouting {
		return nil, errors.New("--ignore-pointer is for the manifest diff: add --diff=manifests or --diff=both")
	}
	for _, p := range r.IgnorePointers {
		ptr, err := manifestdiff.ParsePointer(p)
		if err != nil {
			return nil, err
		}
		opts.Manifests.Pointers = append(opts.Manifests.Pointers, ptr)
	}
	return routediff.Compare(ctx, opts)
}

// Diff compares the routing of app paths at two revisions (routeguard
// diff).
type Diff struct {
	DiffOptions
	Render   RenderOptions
	Analysis AnalysisOptions
}

// Run compares paths (none: the working directory).
func (a *Diff) Run(ctx context.Context, env Env, paths []string) (*routediff.Result, error) {
	return a.compare(ctx, env, paths, a.options(env))
}

// options are the comparison's options, each path taken through the
// pipeline as analyze takes an app.
func (a *Diff) options(env Env) routediff.Options {
	return routediff.Options{DefaultNamespace: a.Render.Namespace, ConfigFile: a.Analysis.ConfigFile,
		Analyze: func(ctx context.Context, path, root string, analyze bool, trace *confine.Trace) (*pipeline.Outcome, error) {
			return a.app(ctx, env, path, root, analyze, trace)
		},
		AnalyzeKeep: func(ctx context.Context, path, root string, trace *confine.Trace) (*pipeline.Outcome, *pipeline.Outcome, error) {
			return a.appKeep(ctx, env, path, root, trace)
		},
		// Not the first render at head, which only traces.
		Analyzed: func(root, rel string, err error) {
			status := "analyzed"
			if err != nil {
				status = "not rendered"
			}
			a.done(root, "app", rel, status)
		}}
}

// app takes one app of one revision through the pipeline as analyze does,
// confined to that revision's root.
func (a *Diff) app(ctx context.Context, env Env, path, root string, analyze bool, trace *confine.Trace) (*pipeline.Outcome, error) {
	opts, an, err := a.appOptions(env, path, root, trace)
	if err != nil {
		return nil, err
	}
	if !analyze {
		an = nil
	}
	_, out, err := renderApp(ctx, opts, pipeline.Input{ConfigFile: a.Analysis.ConfigFile}, pipeline.Changes{}, an)
	return out, err
}

// appKeep is app with analysis, giving also the outcome app without
// analysis gives, of the same render.
func (a *Diff) appKeep(ctx context.Context, env Env, path, root string, trace *confine.Trace) (prepared, analyzed *pipeline.Outcome, err error) {
	opts, an, err := a.appOptions(env, path, root, trace)
	if err != nil {
		return nil, nil, err
	}
	prepared = &pipeline.Outcome{}
	_, analyzed, err = renderAppKeep(ctx, opts, pipeline.Input{ConfigFile: a.Analysis.ConfigFile}, pipeline.Changes{}, an, prepared)
	if err != nil {
		return nil, nil, err
	}
	return prepared, analyzed, nil
}

func (a *Diff) appOptions(env Env, path, root string, trace *confine.Trace) (render.Options, *pipeline.Analysis, error) {
	opts, err := a.Render.options(env, path)
	if err != nil {
		return opts, nil, err
	}
	opts.RepoRoot, opts.Trace = root, trace
	an, err := a.Analysis.analysis(env, a.Render.KubeVersion, opts.Helm.Namespace)
	if err != nil {
		return opts, nil, err
	}
	an.Cluster.SubstitutedOnApply = true
	an.FailOn = analysis.FailOnUnset // --fail-on-new decides
	return opts, an, nil
}

// relTo is path relative to root with slashes (path when it is not below).
func relTo(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return path
}
