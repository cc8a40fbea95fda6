package action

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/routeguard/routeguard/internal/affected"
	"github.com/routeguard/routeguard/internal/argocd"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/routediff"
)

// ChangedOptions make argocd diff build at base only what the change can
// affect (argocd.BuildPair); the review is the same as a full one.
type ChangedOptions struct {
	// From is the revision the change is counted from: the base (Base
	// defaults to it; a different Base is an error).
	From string
	// Files is a file listing the changed paths, one per line from the
	// repository root ("-": standard input). Paths the revisions differ
	// in that it does not list are taken too, with a warning.
	Files string
}

// pairOptions checks the options (setting revs.Base from From) and reads
// the list.
func (c ChangedOptions) pairOptions(env Env, revs *DiffOptions) (argocd.PairOptions, error) {
	var po argocd.PairOptions
	if c.From != "" {
		if revs.Base != "" && revs.Base != c.From {
			return po, fmt.Errorf("--changed-from %s and --base %s name different revisions; the changes are those between base and head, so give one of them", c.From, revs.Base)
		}
		revs.Base = c.From
	}
	po.Affected = c.From != "" || c.Files != ""
	if c.Files == "" {
		return po, nil
	}
	name, r := "stdin", env.Stdin
	if c.Files != "-" {
		f, err := os.Open(c.Files)
		if err != nil {
			return po, fmt.Errorf("--changed-files: %w", err)
		}
		defer f.Close()
		name, r = c.Files, f
	}
	if r == nil {
		return po, fmt.Errorf("--changed-files -: no standard input")
	}
	list, err := affected.ParseList(r, name)
	if err != nil {
		return po, fmt.Errorf("--changed-files: %w", err)
	}
	po.Listed = list
	return po, nil
}

// pair builds both revisions (argocd.BuildPair) and analyzes each.
func (a *ArgoCDDiff) pair(ctx context.Context, env Env, po argocd.PairOptions, baseRoot, headRoot string, rels []string, ignore *appIgnores) (*pipeline.Outcome, *pipeline.Outcome, *routediff.AppCounts, error) {
	po.BaseRoot, po.HeadRoot, po.MaxFileBytes = baseRoot, headRoot, a.ArgoCD.MaxFileMiB<<20
	po.Build = func(ctx context.Context, root string, tune func(*argocd.Options)) (*argocd.Result, error) {
		o := a.ArgoCD
		o.RepoRoot, o.tune = root, tune
		o.Progress = func(app *argocd.AppResult) { a.done(root, "Application", app.App.Key(), app.Status()) }
		paths := make([]string, len(rels))
		for i, r := range rels {
			paths[i] = filepath.Join(root, filepath.FromSlash(r))
		}
		return o.build(ctx, env, paths)
	}
	p, err := argocd.BuildPair(ctx, po)
	if err != nil {
		return nil, nil, nil, err
	}
	// The clusters of each revision are analyzed at once, as before.
	var base, head *pipeline.Outcome
	var errs [2]error
	var wg sync.WaitGroup
	wg.Go(func() { base, errs[0] = a.outcome(ctx, env, baseRoot, p.Base, ignore) })
	wg.Go(func() { head, errs[1] = a.outcome(ctx, env, headRoot, p.Head, ignore) })
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", []string{"base", "head"}[i], err)
		}
	}
	head.Notices = append(head.Notices, p.Notices...)
	return base, head, &routediff.AppCounts{Kind: "Applications", Built: p.Built, Unaffected: p.Unaffected, NotBuildable: p.NotBuildable}, nil
}
