package action

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/routeguard/routeguard/internal/flux"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
	"github.com/routeguard/routeguard/internal/routediff"
)

// FluxDiff compares the routing of a Flux tree at two revisions
// (routeguard flux diff): each revision is built (in full, or at base only
// what the change can affect: Changed) and analyzed as flux build --all
// does.
type FluxDiff struct {
	DiffOptions
	Tree     FluxTree
	Analysis AnalysisOptions
	Changed  ChangedOptions

	// merged, when set (report merge), gives the builds of the shards of
	// the review.
	merged *fluxMerged
	// confineSources (a shard, report merge): every --source directory
	// must lead to one inside the revision (sourcesInside).
	confineSources bool
}

// Run compares the tree under paths (at most one: the cluster directory;
// none: the working directory).
func (a *FluxDiff) Run(ctx context.Context, env Env, paths []string) (*routediff.Result, error) {
	wd := env.workDir()
	req, err := a.Changed.request(env, &a.DiffOptions)
	if err != nil {
		return nil, err
	}
	return a.compare(ctx, env, paths, routediff.Options{ConfigFile: a.Analysis.ConfigFile,
		Pair: func(ctx context.Context, baseRoot, headRoot string, rels []string) (*pipeline.Outcome, *pipeline.Outcome, *routediff.AppCounts, error) {
			return a.pair(ctx, env, req, wd, baseRoot, headRoot, rels[0])
		}})
}

// tree builds the Flux tree at rel in the revision checked out at root,
// with tune applied to the build's options. --source paths inside the
// repository name the revision's copy of them.
func (a *FluxDiff) tree(ctx context.Context, env Env, wd, root, rel string, tune func(*flux.Options)) (*FluxBuild, flux.Options, *flux.Result, error) {
	b := &FluxBuild{All: true, Analyze: true, Output: "yaml", RepoRoot: root, Tree: a.Tree, Analysis: a.Analysis}
	b.Tree.Sources = revisionPaths(a.Tree.Sources, wd, root)
	if a.confineSources {
		if err := sourcesInside(b.Tree.Sources, root); err != nil {
			return nil, flux.Options{}, nil, err
		}
	}
	opts, err := b.options(env, filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, opts, nil, err
	}
	opts.Progress = func(e flux.Event) {
		if e.Phase == flux.Finished {
			a.done(root, e.Node.Object.Kind, objectName(e.Node.Object), e.Node.Status.String())
		}
	}
	tune(&opts)
	res, err := flux.BuildTree(ctx, opts)
	return b, opts, res, err
}

// outcome analyzes the tree res built from the revision checked out at
// root.
func (a *FluxDiff) outcome(ctx context.Context, env Env, b *FluxBuild, opts flux.Options, root string, res *flux.Result) (*pipeline.Outcome, error) {
	unapplied, err := fluxTransformsUnapplied(root, res.Nodes)
	if err != nil {
		return nil, err
	}
	prior := append(append(res.Findings, unapplied...), res.NothingChecked(res.Objects, res.Nodes)...)
	out, err := b.analyze(ctx, env, opts, res, res.Objects, nil, prior)
	if err != nil {
		return nil, err
	}
	out.Notices = append(out.Notices, res.Notices...)
	out.Owners = map[manifest.Key]pipeline.Owner{}
	for _, n := range res.Nodes {
		for _, o := range n.Objects {
			if _, dup := out.Owners[o.Key()]; !dup {
				out.Owners[o.Key()] = pipeline.Owner{Kind: n.Object.Kind, Name: n.Object.Namespace + "/" + n.Object.Name}
			}
		}
	}
	out.Unbuilt = res.Unbuilt()
	return out, nil
}

// revisionPaths rewrites KIND/NS/NAME=PATH sources whose PATH lies in the
// repository of wd to the same path under root.
func revisionPaths(sources []string, wd, root string) []string {
	top, err := render.FindRepoRoot(wd)
	if err != nil {
		return sources
	}
	out := make([]string, len(sources))
	for i, s := range sources {
		out[i] = s
		ref, p, ok := strings.Cut(s, "=")
		if !ok {
			continue
		}
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(wd, p)
		}
		if r, err := filepath.Rel(top, abs); err == nil && filepath.IsLocal(r) || r == "." {
			out[i] = ref + "=" + filepath.Join(root, r)
		}
	}
	return out
}

// objectName is "namespace/name", or "name" for a cluster-scoped object.
func objectName(o *manifest.Object) string {
	if o.Namespace == "" {
		return o.Name
	}
	return o.Namespace + "/" + o.Name
}
