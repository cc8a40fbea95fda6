package action

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/routeguard/routeguard/internal/affected"
	"github.com/routeguard/routeguard/internal/argocd"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/routediff"
)

// pair builds both revisions (argocd.BuildPair) and analyzes each.
func (a *ArgoCDDiff) pair(ctx context.Context, env Env, req affected.Request, baseRoot, headRoot string, rels []string, ignore *appIgnores) (*pipeline.Outcome, *pipeline.Outcome, *routediff.AppCounts, error) {
	req.MaxFileBytes = a.ArgoCD.MaxFileMiB << 20
	po := argocd.PairOptions{BaseRoot: baseRoot, HeadRoot: headRoot, Request: req}
	po.Build = func(ctx context.Context, root string, tune func(*argocd.Options)) (*argocd.Result, error) {
		o := a.ArgoCD
		o.RepoRoot, o.tune = root, tune
		rev, mergeErr := 1, error(nil)
		if root == baseRoot {
			rev = 0
		}
		if a.merged != nil { // report merge: every render from the shards
			o.tune = a.merged.tune(rev, root, &mergeErr)
		}
		o.Progress = func(app *argocd.AppResult) { a.done(root, "Application", app.App.Key(), app.Status()) }
		paths := make([]string, len(rels))
		for i, r := range rels {
			paths[i] = filepath.Join(root, filepath.FromSlash(r))
		}
		res, err := o.build(ctx, env, paths)
		if a.merged != nil && err == nil {
			if mergeErr != nil {
				return nil, mergeErr
			}
			a.merged.restore(rev, res)
		}
		return res, err
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
