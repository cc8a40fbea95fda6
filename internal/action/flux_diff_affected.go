package action

import (
	"context"
	"fmt"
	"sync"

	"github.com/routeguard/routeguard/internal/affected"
	"github.com/routeguard/routeguard/internal/flux"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/routediff"
)

// pair builds both revisions of the tree at rel (flux.BuildPair) and
// analyzes each.
func (a *FluxDiff) pair(ctx context.Context, env Env, req affected.Request, wd, baseRoot, headRoot, rel string) (*pipeline.Outcome, *pipeline.Outcome, *routediff.AppCounts, error) {
	req.MaxFileBytes = manifest.DefaultMaxFileBytes
	type built struct {
		b    *FluxBuild
		opts flux.Options
	}
	var mu sync.Mutex
	builds := map[string]built{}
	po := flux.PairOptions{BaseRoot: baseRoot, HeadRoot: headRoot, Request: req,
		Build: func(ctx context.Context, root string, tune func(*flux.Options)) (*flux.Result, error) {
			b, opts, res, err := a.tree(ctx, env, wd, root, rel, func(o *flux.Options) {
				tune(o)
				if a.merged != nil { // report merge: the shards' builds
					o.Carried = a.merged.carried[0]
					if root == headRoot {
						o.Carried = a.merged.carried[1]
					}
				}
			})
			if err != nil {
				return nil, err
			}
			mu.Lock()
			builds[root] = built{b, opts}
			mu.Unlock()
			return res, nil
		}}
	p, err := flux.BuildPair(ctx, po)
	if err != nil {
		return nil, nil, nil, err
	}
	// Both revisions are analyzed at once, as before.
	var base, head *pipeline.Outcome
	var errs [2]error
	var wg sync.WaitGroup
	wg.Go(func() {
		x := builds[baseRoot]
		base, errs[0] = a.outcome(ctx, env, x.b, x.opts, baseRoot, p.Base)
	})
	wg.Go(func() {
		x := builds[headRoot]
		head, errs[1] = a.outcome(ctx, env, x.b, x.opts, headRoot, p.Head)
	})
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", []string{"base", "head"}[i], err)
		}
	}
	head.Notices = append(head.Notices, p.Notices...)
	return base, head, &routediff.AppCounts{Kind: "Kustomizations and HelmReleases", Built: p.Built, Unaffected: p.Unaffected, NotBuildable: p.NotBuildable}, nil
}
