package routediff

import (
	"context"
	"errors"
	"maps"

	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/pipeline"
)

// PathSides is what one app path of a review became at both revisions
// (routeguard diff): each path is rendered and analyzed on its own, so a
// review's paths can be taken through the pipeline by different
// processes (the shards of a CI matrix) and the review assembled from
// their outcomes (Options.Sides) is the review of one process.
type PathSides struct {
	Rel string
	// Same: everything the path's render read is the same at both
	// revisions (reuse.go); Base is then nil, Traced is the render at
	// head without analysis, and Head (when analyzed) the analyzed one.
	Same bool
	// Base and Head are the path's outcomes at each revision (nil: the
	// path is not in that revision, or, Same, not analyzed at head).
	Base, Head *pipeline.Outcome
	Traced     *pipeline.Outcome
}

// SidesFunc gives the sides of each of the paths of the revisions t
// checked out (t.Rels).
type SidesFunc func(t *Trees) ([]PathSides, error)

// AnalyzePaths takes each of rels (some of t.Rels) through the pipeline at
// both revisions (opts.Analyze) as Compare does, analyzing the paths the
// change leaves alone at head too when analyzeSame is set (what Assemble
// needs to give the outcomes of Options.AllHeadFindings). The sides are in
// rels' order.
func AnalyzePaths(ctx context.Context, opts Options, rels []string, t *Trees, analyzeSame bool) ([]PathSides, error) {
	if opts.Analyze == nil {
		return nil, errors.New("routediff: AnalyzePaths wants Analyze")
	}
	return analyzePaths(ctx, opts, rels, t, analyzeSame)
}

func analyzePaths(ctx context.Context, opts Options, rels []string, t *Trees, analyzeSame bool) ([]PathSides, error) {
	baseRoot, headRoot := t.BaseRoot, t.HeadRoot
	if err := t.WriteUnder(rels); err != nil {
		return nil, err
	}
	first, err := renderHead(ctx, opts, t, rels, analyzeSame)
	if err != nil {
		return nil, err
	}
	// What the head's renders observed is looked at in the base too.
	traces := make([]*confine.Trace, 0, len(first))
	for _, rel := range rels {
		if f, ok := first[rel]; ok {
			traces = append(traces, f.trace)
		}
	}
	if err := writeObserved(t.base, traces); err != nil {
		return nil, err
	}
	c, err := confine.NewComparer(baseRoot, headRoot)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	reuse := make([]bool, len(rels))
	eachIndex(len(rels), func(i int) { reuse[i] = reusable(first[rels[i]], c, baseRoot, rels[i]) })
	same := map[string]bool{}
	// A path whose head render a trace cannot vouch for is rendered on a
	// whole base: rendered on demand, it would be rendered twice.
	whole := false
	for i, rel := range rels {
		same[rel] = reuse[i]
		if f, ok := first[rel]; ok && !reuse[i] && exists(baseRoot, rel) && (f.trace.OpaqueReason() != "" || hasContextPaths(f.out)) {
			whole = true
		}
	}
	baseOut, err := side(ctx, opts, baseRoot, t.base, rels, same, whole)
	if err != nil {
		return nil, err
	}
	headSkip := map[string]bool{}
	if !analyzeSame {
		headSkip = maps.Clone(same)
	}
	// Analyzed with the first render (Options.AnalyzeKeep): not again.
	analyzedFirst := map[string]*pipeline.Outcome{}
	for _, rel := range rels {
		if f, ok := first[rel]; ok && f.err == nil && f.analyzed != nil {
			analyzedFirst[rel] = f.analyzed
			headSkip[rel] = true
		}
	}
	headOut, err := side(ctx, opts, headRoot, t.head, rels, headSkip, false)
	if err != nil {
		return nil, err
	}
	for _, rel := range rels {
		if out, ok := analyzedFirst[rel]; ok && (analyzeSame || !same[rel]) {
			headOut[rel] = out
			if opts.Analyzed != nil {
				opts.Analyzed(headRoot, rel, nil)
			}
		}
	}
	ps := make([]PathSides, len(rels))
	for i, rel := range rels {
		ps[i] = PathSides{Rel: rel, Same: same[rel], Base: baseOut[rel], Head: headOut[rel]}
		if ps[i].Same {
			ps[i].Base, ps[i].Traced = nil, first[rel].out
		}
	}
	return ps, nil
}

// Assemble turns the sides of a review's paths into each revision's
// outcome by path, as Compare takes them, and counts the paths rendered
// once: with allHeadFindings a path the same at both revisions stands for
// both with its analyzed head outcome, else with its render at head.
func Assemble(ps []PathSides, allHeadFindings bool) (baseOut, headOut map[string]*pipeline.Outcome, reused int) {
	baseOut, headOut = map[string]*pipeline.Outcome{}, map[string]*pipeline.Outcome{}
	for _, p := range ps {
		switch {
		case p.Same:
			reused++
			out := p.Traced
			if allHeadFindings {
				out = p.Head
			}
			baseOut[p.Rel], headOut[p.Rel] = out, out
		default:
			if p.Base != nil {
				baseOut[p.Rel] = p.Base
			}
			if p.Head != nil {
				headOut[p.Rel] = p.Head
			}
		}
	}
	return baseOut, headOut, reused
}
