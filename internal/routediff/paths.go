package routediff

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/codeowners"
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

// SidesFunc gives the sides of each of rels, the revisions checked out at
// baseRoot and headRoot.
type SidesFunc func(rels []string, baseRoot, headRoot string) ([]PathSides, error)

// AnalyzePaths takes each of rels through the pipeline at both revisions
// (opts.Analyze) as Compare does, analyzing the paths the change leaves
// alone at head too when analyzeSame is set (what Assemble needs to give
// the outcomes of Options.AllHeadFindings). The sides are in rels' order.
func AnalyzePaths(ctx context.Context, opts Options, rels []string, baseRoot, headRoot string, analyzeSame bool) ([]PathSides, error) {
	if opts.Analyze == nil {
		return nil, errors.New("routediff: AnalyzePaths wants Analyze")
	}
	return analyzePaths(ctx, opts, rels, baseRoot, headRoot, analyzeSame)
}

func analyzePaths(ctx context.Context, opts Options, rels []string, baseRoot, headRoot string, analyzeSame bool) ([]PathSides, error) {
	first := renderHead(ctx, opts, headRoot, rels)
	c, err := confine.NewComparer(baseRoot, headRoot)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	reuse := make([]bool, len(rels))
	eachIndex(len(rels), func(i int) { reuse[i] = reusable(first[rels[i]], c, baseRoot, rels[i]) })
	same := map[string]bool{}
	for i, rel := range rels {
		same[rel] = reuse[i]
	}
	baseOut, err := side(ctx, opts, baseRoot, rels, same)
	if err != nil {
		return nil, err
	}
	headSkip := same
	if analyzeSame {
		headSkip = nil
	}
	headOut, err := side(ctx, opts, headRoot, rels, headSkip)
	if err != nil {
		return nil, err
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

// NeededBySides is the ExportOnly of a review assembled with Sides from
// the paths rels (relative to the repository root): the CODEOWNERS files
// (shared.go) and the files under each path (unbuilt.go lists the routing
// files of a path that did not build). Nothing else is read: the outcomes
// come whole.
func NeededBySides(rels []string) func(name string) bool {
	return func(name string) bool {
		if slices.Contains(codeowners.AllLocations, name) {
			return true
		}
		for _, rel := range rels {
			if rel == "." || name == rel || strings.HasPrefix(name, rel+"/") {
				return true
			}
		}
		return false
	}
}
