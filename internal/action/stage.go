package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/coverage"
	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/flux"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
)

// The actions connect the sources (render, flux, argocd) to the pipeline:
// a source produces objects and the scopes it could not render, the
// pipeline takes them through substitution, transforms and the analysis.

// renderApp renders the app of opts (the render source) and takes its
// objects through the pipeline (prepared with ch; analyzed with a, unless
// nil). in names the configuration; its Objects, AppDir, RepoRoot and
// Trace come from the render. It returns the render's result too.
func renderApp(ctx context.Context, opts render.Options, in pipeline.Input, ch pipeline.Changes, a *pipeline.Analysis) (*render.Result, *pipeline.Outcome, error) {
	return renderAppKeep(ctx, opts, in, ch, a, nil)
}

// renderAppKeep is renderApp; with a and prepared set, prepared is also
// given the outcome renderApp without analysis gives, of the same render.
func renderAppKeep(ctx context.Context, opts render.Options, in pipeline.Input, ch pipeline.Changes, a *pipeline.Analysis, prepared *pipeline.Outcome) (*render.Result, *pipeline.Outcome, error) {
	var prior []analysis.Finding
	if opts.RepeatedObject == nil {
		opts.RepeatedObject = func(d *manifest.DuplicateError) { prior = append(prior, repeatedObject(d)) }
	}
	res, err := render.Render(ctx, opts)
	var notices []notice.Notice
	var unbuilt []notice.Unbuilt
	var unrendered []analysis.UnrenderedScope
	skipped := false
	var md *render.MissingDependenciesError
	if errors.As(err, &md) && opts.Helm.SkipMissingDependencies {
		// A chart that renders nothing without dependencies routeguard
		// cannot have: not checked, and said so (not a failed run: Helm
		// with the dependencies renders it).
		root := opts.RepoRoot
		if root == "" {
			root, _ = render.FindRepoRoot(opts.Path)
		}
		if abs, aerr := filepath.Abs(root); aerr == nil {
			root = abs
		}
		res, err = &render.Result{Tool: render.ToolHelm, Path: md.Chart, RepoRoot: root, Set: manifest.NewSet()}, nil
		notices = append(notices, notice.Warningf(
			"%s: not checked: the chart renders nothing without its dependencies, which could not be had (%s); vendor them under charts/ (helm dependency build) to check it", md.Chart, md.Error()))
		unbuilt = append(unbuilt, notice.Unbuilt{What: "path " + md.Chart, Where: md.Chart, Why: "renders nothing without its chart dependencies: " + md.Error()})
		skipped = true
	}
	if err != nil {
		return nil, nil, err
	}
	for _, w := range res.Warnings {
		notices = append(notices, notice.Notice{Level: notice.Warning, Text: w})
	}
	if md := res.MissingDependencies; md != nil {
		// Rendered without them (HelmOptions.SkipMissingDependencies): what
		// they install cannot be checked, and the user is told.
		ns := cmp.Or(opts.Helm.Namespace, "default")
		u := analysis.UnrenderedScope{Namespace: ns, Reason: "chart " + md.Chart + " is rendered without its dependencies, which could not be had (" + md.Error() + ")"}
		for _, d := range md.Missing {
			u.Makers = append(u.Makers, d.Name)
		}
		unrendered = append(unrendered, u, analysis.UnrenderedScope{Namespace: "", Reason: u.Reason, Makers: u.Makers})
		notices = append(notices, notice.Warningf(
			"%s: rendered without its chart dependencies (%s); the chart's own templates are checked, what the dependencies install in namespace %q cannot be; vendor them under charts/ (helm dependency build), or pass --allow-network", md.Chart, md.Error(), ns))
		unbuilt = append(unbuilt, notice.Unbuilt{What: "path " + res.Path, Where: res.Path, Partly: true,
			Why: "rendered without its chart dependencies: " + md.Error()})
	}
	in.Objects, in.RepoRoot, in.Trace = res.Set, res.RepoRoot, opts.Trace
	in.AppDir = filepath.Join(res.RepoRoot, filepath.FromSlash(res.Path))
	if a != nil {
		an := *a
		an.Prior = append(slices.Clip(an.Prior), prior...)
		an.Unrendered = append(slices.Clip(an.Unrendered), unrendered...)
		an.ContextPaths = contextPaths(opts)
		if res.Set.Len() == 0 && !skipped {
			// Nothing to check is not a pass: say so (RG0007).
			an.Analyzers = append(slices.Clip(an.Analyzers), coverage.Apps{Apps: []coverage.App{{
				Source: manifest.Source{File: cmp.Or(res.Path, ".")}, What: fmt.Sprintf("%s %s", res.Tool, cmp.Or(res.Path, ".")),
			}}})
		}
		a = &an
	}
	out, err := runObjectsKeep(ctx, in, ch, a, prepared)
	if err != nil {
		return res, nil, err
	}
	for _, o := range []*pipeline.Outcome{out, prepared} {
		if o != nil {
			o.Notices = append(slices.Clip(notices), o.Notices...)
			o.Unbuilt = append(slices.Clip(unbuilt), o.Unbuilt...)
		}
	}
	return res, out, nil
}

// runObjects prepares objects that were not built as a Flux tree and,
// unless a is nil, analyzes them: the Flux Kustomizations and
// HelmReleases among them are applied as objects, and what they install
// is unrendered (RG0001).
func runObjects(ctx context.Context, in pipeline.Input, ch pipeline.Changes, a *pipeline.Analysis) (*pipeline.Outcome, error) {
	return runObjectsKeep(ctx, in, ch, a, nil)
}

// runObjectsKeep is runObjects; prepared, when set, is given the outcome
// before the analysis (runObjects without a).
func runObjectsKeep(ctx context.Context, in pipeline.Input, ch pipeline.Changes, a *pipeline.Analysis, prepared *pipeline.Outcome) (*pipeline.Outcome, error) {
	out, err := pipeline.Prepare(ctx, in, ch)
	if err != nil || a == nil {
		return out, err
	}
	if prepared != nil {
		*prepared = *out
		prepared.Notices, prepared.Unbuilt = slices.Clip(out.Notices), slices.Clip(out.Unbuilt)
		prepared.Findings, prepared.Unrendered = slices.Clip(out.Findings), slices.Clip(out.Unrendered)
	}
	an := *a
	var unbuilt []string
	for _, o := range out.Set.Objects() {
		if scopes := flux.UnbuiltScopes(o, "is built by Flux in the cluster, not here"); len(scopes) > 0 {
			an.Unrendered = append(slices.Clip(an.Unrendered), scopes...)
			unbuilt = append(unbuilt, o.String())
		}
	}
	if err := out.Analyze(ctx, an); err != nil {
		return nil, err
	}
	if len(unbuilt) > 0 {
		out.Notices = append([]notice.Notice{notice.Notef(
			"%d Flux Kustomization(s) and HelmRelease(s) (first: %s) are applied as objects; what they install is built by Flux in the cluster, so references into it cannot be checked here (RG0001); `routeguard flux build` builds them",
			len(unbuilt), unbuilt[0])}, out.Notices...)
	}
	return out, nil
}

// repeatedObject is the finding for an object an app renders twice: Argo
// CD applies the last one and warns (RepeatedResourceWarning), so it is
// never an error here; the later object is the one analyzed.
func repeatedObject(d *manifest.DuplicateError) analysis.Finding {
	return analysis.Finding{Code: analysis.CodeRepeatedObject, Source: d.Second, Analyzer: "render",
		Object: analysis.RefOf(d.Object)}.Fill(d.Key.String(), d.First.String())
}

// contextPaths renders a configuration's context paths, each with the
// render options of base (network, size limit, Helm capabilities) and its
// own Helm and directory settings. Their objects only resolve references;
// an object rendered by two context paths is kept once.
func contextPaths(base render.Options) pipeline.ContextRenderer {
	return func(ctx context.Context, cfg *config.Config, repoRoot string) (*manifest.Set, error) {
		set := manifest.NewSet()
		for _, cp := range cfg.ContextPaths {
			opts := render.Options{
				Path:         filepath.Join(repoRoot, filepath.FromSlash(cp.Path)),
				RepoRoot:     repoRoot,
				AllowNetwork: base.AllowNetwork,
				MaxFileBytes: base.MaxFileBytes,
				Self:         base.Self,
				Helm: render.HelmOptions{Namespace: cp.Namespace, Release: cp.Release, ValuesFiles: cp.Values,
					KubeVersion: base.Helm.KubeVersion, APIVersions: base.Helm.APIVersions, IncludeCRDs: true},
				Directory: render.DirectoryOptions{Recurse: cp.Recurse},
			}
			res, err := render.Render(ctx, opts)
			if err != nil {
				return nil, fmt.Errorf("%s: rendering context path %s: %w", cfg.File, cp.Path, err)
			}
			for _, o := range res.Set.Objects() {
				if _, dup := set.Get(o.Key()); dup {
					continue
				}
				if err := set.Add(o); err != nil {
					return nil, err
				}
			}
		}
		return set, nil
	}
}
