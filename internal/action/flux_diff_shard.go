package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/routeguard/routeguard/internal/flux"
	"github.com/routeguard/routeguard/internal/routediff"
	"github.com/routeguard/routeguard/internal/shard"
)

// A shard of flux diff (--shard I/N) builds both revisions of the tree as
// flux diff does, but renders only its own HelmReleases and Kustomizations
// and those of others that discover the tree (flux.ShardPlan), and writes
// every build of its own (shard.Of of each node's kind, namespace and
// name) to the shard file. report merge builds the tree again from the
// shards (fluxMerged): a node is taken from a shard when the shard built
// it from the same object and cluster inputs, and built by the merge
// otherwise, so the review is the unsharded one, byte for byte.

// strictNames are --strict's values as shard files carry them.
var strictNames = map[flux.Strictness]string{flux.StrictOn: "true", flux.StrictOff: "false", flux.StrictAuto: "auto"}

// fluxShardOptions checks that a's options can be carried to the merge
// and returns them.
func (a *FluxDiff) fluxShardOptions(env Env, rels []string) (ShardOptions, error) {
	for _, f := range []struct{ flag, v string }{
		{"--config", a.Analysis.ConfigFile}, {"--plugins", a.Analysis.Plugins}, {"--crd-dir", a.Analysis.Cluster.CRDDir},
		{"--chart-cache", a.Tree.ChartCache}, {"--vars-file", strings.Join(a.Tree.VarsFiles, ",")},
		{"--changed-from", a.Changed.From}, {"--changed-files", a.Changed.Files},
	} {
		if f.v != "" {
			return ShardOptions{}, fmt.Errorf("--shard does not take %s yet (the merge would read that file, directory or list); run the review without --shard", f.flag)
		}
	}
	sources, err := shardSources(a.Tree.Sources, env.workDir())
	if err != nil {
		return ShardOptions{}, err
	}
	strict, ok := strictNames[a.Tree.Strict]
	if !ok {
		return ShardOptions{}, fmt.Errorf("--strict: unknown value %d", a.Tree.Strict)
	}
	return ShardOptions{Paths: rels, Review: a.Review, IgnorePointers: a.IgnorePointers, CodeOwners: a.CodeOwners,
		KubeVersion:  cmp.Or(a.Tree.KubeVersion, env.Getenv("KUBE_VERSION")), // the merge's environment may differ
		AllowNetwork: a.Tree.AllowNetwork, FetchCharts: a.Tree.FetchCharts, GatewayAPIChannel: a.Analysis.Cluster.GatewayAPIChannel,
		Strict: strict, Vars: a.Tree.Vars, Sources: sources}, nil
}

// RunShard builds the shard's part of the tree under paths (as Run takes
// them) at both revisions and returns the shard file.
func (a *FluxDiff) RunShard(ctx context.Context, env Env, spec shard.Spec, paths []string) (*ShardFile, error) {
	if err := spec.Validate(); err != nil || spec.Count == 0 {
		return nil, errors.New("--shard: want I/N")
	}
	a.Review = cmp.Or(a.Review, string(routediff.ReviewRouting))
	if !slices.Contains(routediff.Reviews, a.Review) {
		return nil, fmt.Errorf("--diff must be %s, got %q", strings.Join(routediff.Reviews, ", "), a.Review)
	}
	if len(paths) > 1 {
		return nil, errors.New("flux diff takes one path: the cluster directory")
	}
	t, err := routediff.Checkout(routediff.Options{Dir: env.workDir(), Base: a.Base, Head: a.Head, Paths: paths})
	if err != nil {
		return nil, err
	}
	defer t.Close()
	opts, err := a.fluxShardOptions(env, t.Rels)
	if err != nil {
		return nil, err
	}
	out := &ShardFile{Format: ShardFormat, Version: ShardVersion, Command: "flux diff", Base: t.Base, Head: t.Head,
		Index: spec.Index, Count: spec.Count, Options: opts, Apps: []string{}, LeftOut: []string{}}
	wd := env.workDir()
	a.confineSources = true
	var plans [2]*flux.ShardPlan
	var errs [2]error
	var wg sync.WaitGroup
	for i, root := range []string{t.BaseRoot, t.HeadRoot} {
		plans[i] = &flux.ShardPlan{Spec: spec}
		wg.Go(func() {
			_, _, _, err := a.tree(ctx, env, wd, root, t.Rels[0], func(o *flux.Options) { o.Shard = plans[i] })
			if err == nil {
				out.Revisions[i].Nodes, err = plans[i].Builds()
			}
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", []string{"base", "head"}[i], err)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			for _, root := range []string{t.BaseRoot, t.HeadRoot} {
				err = errors.New(strings.ReplaceAll(err.Error(), root+string(filepath.Separator), ""))
			}
			return nil, err
		}
	}
	for i := range out.Revisions {
		for _, b := range out.Revisions[i].Nodes {
			out.Apps = append(out.Apps, b.ID().String())
		}
		out.LeftOut = append(out.LeftOut, plans[i].LeftOut()...)
	}
	slices.Sort(out.Apps)
	out.Apps = slices.Compact(out.Apps)
	slices.Sort(out.LeftOut)
	out.LeftOut = slices.Compact(out.LeftOut)
	return out, nil
}

// fluxMerged are the builds every shard carried, by revision: the
// merge's builds take them (flux.Options.Carried).
type fluxMerged struct {
	carried [2]*flux.Carried
}

func newFluxMerged(shards []readShard) *fluxMerged {
	var builds [2][]flux.CarriedBuild
	for _, s := range shards {
		for i, r := range s.file.Revisions {
			builds[i] = append(builds[i], r.Nodes...)
		}
	}
	return &fluxMerged{carried: [2]*flux.Carried{flux.NewCarried(builds[0]), flux.NewCarried(builds[1])}}
}

// counts says how many nodes the merge took from the shards and how many
// it built, over both revisions; the error of a carried build that could
// not be read.
func (m *fluxMerged) counts() (taken, built int, err error) {
	for _, c := range m.carried {
		t, b, e := c.Counts()
		taken, built, err = taken+t, built+b, cmp.Or(err, e)
	}
	return taken, built, err
}
