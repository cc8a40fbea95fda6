package action

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/routediff"
	"github.com/routeguard/routeguard/internal/shard"
)

// A shard of routeguard diff (--shard I/N) takes through the pipeline, at
// both revisions, only the app paths its shard holds (shard.Of of each
// path, relative to the repository root), exactly as diff does, and
// writes their outcomes to the shard file. Unlike the reviews of whole
// trees, each app path is rendered and analyzed on its own, so the merge
// (report merge) renders and analyzes nothing: it assembles both
// revisions from the carried outcomes (routediff.Options.Sides) and
// compares once, the same review, byte for byte, as diff without
// --shard. A path the change leaves alone is analyzed at head by its
// shard too, so that the merge can write --report files (every finding
// of head) or not, as diff would.

// CarriedPath is what one app path became at both revisions
// (routediff.PathSides), each outcome rooted at its revision's checkout.
type CarriedPath struct {
	Rel  string                   `json:"path"`
	Same bool                     `json:"same,omitempty"`
	Base *pipeline.CarriedOutcome `json:"base,omitempty"`
	Head *pipeline.CarriedOutcome `json:"head,omitempty"`
	// Traced is a Same path's render at head without analysis; with
	// TracedObjectsAsHead its objects are Head's (not carried twice).
	Traced              *pipeline.CarriedOutcome `json:"traced,omitempty"`
	TracedObjectsAsHead bool                     `json:"tracedObjectsAsHead,omitempty"`
}

// pathID is the shard identity of the app path rel.
func pathID(rel string) shard.ID { return shard.ID{Kind: "path", Name: rel} }

// shardOptions checks that a's options can be carried to the merge and
// returns them: the merge needs only the review's, the shards must agree
// on the render and analysis flags (AppFlags).
func (a *Diff) shardOptions(rels []string) (ShardOptions, error) {
	flags, err := json.Marshal(struct {
		Render   RenderOptions
		Analysis AnalysisOptions
	}{a.Render, a.Analysis})
	if err != nil {
		return ShardOptions{}, err
	}
	return ShardOptions{Paths: rels, Review: a.Review, IgnorePointers: a.IgnorePointers, CodeOwners: a.CodeOwners,
		Namespace: a.Render.Namespace, ConfigFile: a.Analysis.ConfigFile, AppFlags: string(flags)}, nil
}

// RunShard takes the shard's app paths (paths as Run takes them) through
// the pipeline at both revisions and returns the shard file.
func (a *Diff) RunShard(ctx context.Context, env Env, spec shard.Spec, paths []string) (*ShardFile, error) {
	if err := spec.Validate(); err != nil || spec.Count == 0 {
		return nil, errors.New("--shard: want I/N")
	}
	var out *ShardFile
	rec := &revRecorder{DiffProgress: a.Progress}
	a.Progress = rec
	defer func() { a.Progress = rec.DiffProgress }()
	ao := a.options(env)
	opts := ao
	opts.Analyze = nil
	// The review's own checks (paths, --diff, --ignore-pointer), then the
	// shard's paths through the pipeline, then nothing compared.
	opts.OnDemand = true
	opts.Sides = func(t *routediff.Trees) ([]routediff.PathSides, error) {
		rels, baseRoot, headRoot := t.Rels, t.BaseRoot, t.HeadRoot
		so, err := a.shardOptions(rels)
		if err != nil {
			return nil, err
		}
		var held []string
		for _, rel := range rels {
			if spec.Holds(pathID(rel)) {
				held = append(held, rel)
			}
		}
		held = slices.Compact(slices.Sorted(slices.Values(held)))
		ps, err := routediff.AnalyzePaths(ctx, ao, held, t, true)
		if err != nil {
			return nil, err
		}
		out = &ShardFile{Format: ShardFormat, Version: ShardVersion, Command: "diff", Base: rec.base, Head: rec.head, Index: spec.Index, Count: spec.Count,
			Options: so, Apps: []string{}, LeftOut: []string{}, Paths: []CarriedPath{}}
		for _, p := range ps {
			c, err := carryPath(p, baseRoot, headRoot)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p.Rel, err)
			}
			out.Apps = append(out.Apps, pathID(p.Rel).String())
			out.Paths = append(out.Paths, c)
		}
		return nil, errShardBuilt
	}
	res, err := a.compare(ctx, env, paths, opts)
	if !errors.Is(err, errShardBuilt) {
		if err == nil {
			err = fmt.Errorf("routeguard diff --shard: compared %v instead of writing a shard", res.Paths)
		}
		return nil, err
	}
	return out, nil
}

// revRecorder keeps the revisions a review resolved, and passes on what
// it hears.
type revRecorder struct {
	DiffProgress
	base, head routediff.Rev
}

func (r *revRecorder) Revisions(base, head routediff.Rev, baseRoot, headRoot string) {
	r.base, r.head = base, head
	if r.DiffProgress != nil {
		r.DiffProgress.Revisions(base, head, baseRoot, headRoot)
	}
}

func (r *revRecorder) Done(root, kind, name, status string) {
	if r.DiffProgress != nil {
		r.DiffProgress.Done(root, kind, name, status)
	}
}

// errShardBuilt stops the review once its shard is built.
var errShardBuilt = errors.New("shard built")

// carryPath is the carried form of p.
func carryPath(p routediff.PathSides, baseRoot, headRoot string) (CarriedPath, error) {
	c := CarriedPath{Rel: p.Rel, Same: p.Same}
	var err error
	carry := func(o *pipeline.Outcome, root string) *pipeline.CarriedOutcome {
		if o == nil || err != nil {
			return nil
		}
		var co *pipeline.CarriedOutcome
		co, err = o.Carry(root)
		return co
	}
	c.Base, c.Head, c.Traced = carry(p.Base, baseRoot), carry(p.Head, headRoot), carry(p.Traced, headRoot)
	if err != nil {
		return c, err
	}
	if c.Traced != nil && c.Head != nil && reflect.DeepEqual(c.Traced.Objects, c.Head.Objects) {
		c.Traced.Objects, c.TracedObjectsAsHead = nil, true
	}
	return c, nil
}

// sides is the routediff.PathSides c carries, under the merge's roots.
func (c CarriedPath) sides(baseRoot, headRoot string) (routediff.PathSides, error) {
	p := routediff.PathSides{Rel: c.Rel, Same: c.Same}
	var err error
	outcome := func(co *pipeline.CarriedOutcome, root, which string) *pipeline.Outcome {
		if co == nil || err != nil {
			return nil
		}
		var o *pipeline.Outcome
		if o, err = co.Outcome(root); err != nil {
			err = fmt.Errorf("%s, %s: %w", c.Rel, which, err)
		}
		return o
	}
	p.Base, p.Head = outcome(c.Base, baseRoot, "base"), outcome(c.Head, headRoot, "head")
	traced := c.Traced
	if traced != nil && c.TracedObjectsAsHead {
		if c.Head == nil {
			return p, fmt.Errorf("%s: the traced render takes head's objects, and head has none", c.Rel)
		}
		t := *traced
		t.Objects = c.Head.Objects
		traced = &t
	}
	p.Traced = outcome(traced, headRoot, "traced render")
	if err != nil {
		return p, err
	}
	if c.Same && (p.Traced == nil || p.Head == nil || p.Base != nil) {
		return p, fmt.Errorf("%s: the same at both revisions, but not carried as such (want head and traced, no base)", c.Rel)
	}
	return p, nil
}

// checkPaths checks a diff shard's paths against its header: each in the
// shard, listed among its apps, once.
func checkPaths(sf *ShardFile, spec shard.Spec) error {
	listed := map[string]bool{}
	for _, id := range sf.Apps {
		listed[id] = true
	}
	if len(sf.Paths) != len(sf.Apps) {
		return fmt.Errorf("%d app paths carried, %d listed among the shard's apps", len(sf.Paths), len(sf.Apps))
	}
	seen := map[string]bool{}
	for _, c := range sf.Paths {
		id := pathID(c.Rel)
		switch {
		case !spec.Holds(id):
			return fmt.Errorf("app path %s is not in shard %s (it falls in shard %d)", c.Rel, spec, shard.Of(id, sf.Count))
		case !listed[id.String()] || seen[c.Rel]:
			return fmt.Errorf("app path %s is not listed among the shard's apps, or carried twice", c.Rel)
		case !slices.Contains(sf.Options.Paths, c.Rel):
			return fmt.Errorf("app path %s is not among the review's paths", c.Rel)
		}
		seen[c.Rel] = true
		if _, err := c.sides("", ""); err != nil {
			return err
		}
	}
	return nil
}

// runDiff merges the shards of a routeguard diff: both revisions are
// assembled from the carried outcomes of every app path, none rendered.
func (m *ReportMerge) runDiff(ctx context.Context, env Env, shards []readShard, allHeadFindings bool) (*routediff.Result, error) {
	first := shards[0].file
	o := first.Options
	byRel := map[string]CarriedPath{}
	for _, s := range shards {
		for _, c := range s.file.Paths {
			byRel[c.Rel] = c
		}
	}
	a := &Diff{}
	a.Base, a.Head = cmpOr(first.Base.Hash, first.Base.Name), first.Head.Hash
	a.Review, a.IgnorePointers, a.CodeOwners = o.Review, o.IgnorePointers, o.CodeOwners
	a.AllHeadFindings, a.Progress = allHeadFindings, m.Progress
	// The findings carried went through the shards' --config; the merge
	// reads no file a shard names.
	a.Render.Namespace = o.Namespace
	paths, err := mergePaths(env, o)
	if err != nil {
		return nil, err
	}
	opts := a.options(env)
	opts.Analyze = nil
	// Nothing is rendered: of each revision only what Compare itself
	// reads is written (most of a merge's time on a large tree).
	opts.OnDemand = true
	opts.Sides = func(t *routediff.Trees) ([]routediff.PathSides, error) {
		rels, baseRoot, headRoot := t.Rels, t.BaseRoot, t.HeadRoot
		if err := t.WriteUnder(rels); err != nil {
			return nil, err
		}
		var missing []string
		ps := make([]routediff.PathSides, 0, len(rels))
		for _, rel := range rels {
			c, ok := byRel[rel]
			if !ok {
				missing = append(missing, rel)
				continue
			}
			p, err := c.sides(baseRoot, headRoot)
			if err != nil {
				return nil, err
			}
			ps = append(ps, p)
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("%d app path(s) carried by no shard file (%s): the shards are not of these paths, or not all given", len(missing), firstN(missing, 5))
		}
		return ps, nil
	}
	res, err := a.compare(ctx, env, paths, opts)
	if err != nil {
		return nil, err
	}
	return renamed(res, first)
}

// checkDiffShard is readShardFile's check of a routeguard diff shard.
func checkDiffShard(sf *ShardFile, spec shard.Spec) error {
	for i, r := range sf.Revisions {
		if len(r.Apps) > 0 || len(r.Nodes) > 0 {
			return fmt.Errorf("%s revision: a diff shard carries app paths only", []string{"base", "head"}[i])
		}
	}
	if strings.TrimSpace(sf.Options.AppFlags) == "" {
		return errors.New("options.appFlags is empty")
	}
	return checkPaths(sf, spec)
}
