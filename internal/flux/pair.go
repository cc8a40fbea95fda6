package flux

import (
	"context"
	"fmt"
	"path"
	"sync"

	"github.com/routeguard/routeguard/internal/affected"
	"github.com/routeguard/routeguard/internal/notice"
)

// PairOptions say how to build the two revisions of a review (flux diff).
type PairOptions struct {
	BaseRoot, HeadRoot string
	// Build builds the tree of the revision checked out at root, with
	// tune applied to its Options (TraceNodes, Reuse).
	Build func(ctx context.Context, root string, tune func(*Options)) (*Result, error)
	// Request: with Affected, base builds only the Kustomizations and
	// HelmReleases the change can affect; the others take head's result.
	affected.Request
}

// Pair is both revisions built.
type Pair struct {
	Base, Head *Result
	// Built, Unaffected and NotBuildable count the Kustomizations,
	// HelmReleases and ResourceSets (by key, over both revisions): built at
	// each revision that has them; taken from head at base; not built
	// whole (skipped, failed, built partly) at one of them.
	Built, Unaffected, NotBuildable int
	Notices                         []notice.Notice
}

// BuildPair builds both revisions: in full, at once; or, with Affected,
// head first with a trace of every node's build, then base, building
// only the nodes whose object, what they read of the cluster, or anything
// their build observed of the checkout differs, or that depend on a node
// the change affects at head (Reuse). When the change cannot be attributed (a symbolic link or
// a .sourceignore file changed, the tree's Flux version, and with it the
// strictness of substitution, differs) base is built in full, with a
// notice saying so.
func BuildPair(ctx context.Context, opts PairOptions) (*Pair, error) {
	p := &Pair{}
	if !opts.Affected {
		var errs [2]error
		var wg sync.WaitGroup
		wg.Go(func() { p.Base, errs[0] = opts.Build(ctx, opts.BaseRoot, func(*Options) {}) })
		wg.Go(func() { p.Head, errs[1] = opts.Build(ctx, opts.HeadRoot, func(*Options) {}) })
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("%s: %w", []string{"base", "head"}[i], err)
			}
		}
		p.count()
		return p, nil
	}
	var err error
	if p.Head, err = opts.Build(ctx, opts.HeadRoot, func(o *Options) { o.TraceNodes = true }); err != nil {
		return nil, fmt.Errorf("head: %w", err)
	}
	changes, notes, err := opts.Collect(opts.BaseRoot, opts.HeadRoot)
	if err != nil {
		return nil, err
	}
	p.Notices = append(p.Notices, notes...)
	reuse := NewReuse(p.Head, changes)
	if why := unattributable(changes); why != "" {
		p.note(notice.Warning, "affected-only: %s; every Kustomization and HelmRelease is built at both revisions", why)
		reuse = nil
	}
	if p.Base, err = opts.Build(ctx, opts.BaseRoot, func(o *Options) { o.Reuse = reuse }); err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	if reuse != nil && p.Base.FluxVersion != p.Head.FluxVersion {
		p.note(notice.Warning, "affected-only: the Flux version the tree installs differs between the revisions (%s at base, %s at head), and with it postBuild's strictness; every Kustomization and HelmRelease is built at both revisions",
			p.Base.FluxVersion.Describe(), p.Head.FluxVersion.Describe())
		if p.Base, err = opts.Build(ctx, opts.BaseRoot, func(*Options) {}); err != nil {
			return nil, fmt.Errorf("base: %w", err)
		}
	}
	p.count()
	p.note(notice.Note, "affected-only: %d changed path(s); %d Kustomization(s) and HelmRelease(s) built at both revisions, %d unaffected (built once, at head: nothing their build read changed), %d not buildable",
		changes.Len(), p.Built, p.Unaffected, p.NotBuildable)
	if reuse != nil && len(reuse.Affected.Unobserved) > 0 {
		p.note(notice.Note, "affected-only: %d changed path(s) that no Kustomization or HelmRelease build read (%s)", len(reuse.Affected.Unobserved), affected.FirstPaths(reuse.Affected.Unobserved))
	}
	return p, nil
}

// unattributable says why changes cannot be attributed to single nodes
// ("" when they can).
func unattributable(c *affected.Changes) string {
	if c.LinksChanged() {
		return "a symbolic link changed, and a build may have read through it under another name"
	}
	for _, p := range c.Paths() {
		if path.Base(p) == ".sourceignore" {
			return p + " changed, and it says what every Kustomization's source holds"
		}
	}
	return ""
}

func (p *Pair) note(level notice.Level, format string, a ...any) {
	p.Notices = append(p.Notices, notice.Notice{Level: level, Text: fmt.Sprintf(format, a...)})
}

// count fills Built, Unaffected and NotBuildable.
func (p *Pair) count() {
	var t affected.Tally
	for _, res := range []*Result{p.Head, p.Base} {
		for _, n := range res.Nodes {
			if n.synthetic {
				continue
			}
			t.Add(n.Key().String(), n.Status == Built && len(n.Partial) == 0, n.Reused)
		}
	}
	p.Built, p.Unaffected, p.NotBuildable = t.Counts()
}
