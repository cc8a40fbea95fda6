package argocd

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/routeguard/routeguard/internal/affected"
	"github.com/routeguard/routeguard/internal/notice"
)

// PairOptions say how to build the two revisions of a review.
type PairOptions struct {
	BaseRoot, HeadRoot string
	// Build builds the revision checked out at root, with tune applied to
	// its Options (TraceApps, Reuse).
	Build func(ctx context.Context, root string, tune func(*Options)) (*Result, error)
	// Request: with Affected, base builds only the Applications the
	// change can affect (--changed-from, --changed-files); the others
	// take head's result.
	affected.Request
}

// Pair is both revisions built.
type Pair struct {
	Base, Head *Result
	// Built, Unaffected and NotBuildable count the Applications (by key,
	// over both revisions): not rendered whole at one of them; taken from
	// head at base; the rest, rendered at each revision that has them.
	Built, Unaffected, NotBuildable int
	Notices                         []notice.Notice
}

// BuildPair builds both revisions: in full, at once; or, with Affected,
// head first with a trace of every Application's render, then base,
// rendering only the Applications whose definition or anything their
// render observed differs (Unaffected). When the change cannot be
// attributed (a symbolic link changed, the repository-wide settings came
// out differently) base is built in full, with a notice saying so.
func BuildPair(ctx context.Context, opts PairOptions) (*Pair, error) {
	p := &Pair{}
	if !opts.Affected {
		var errs [2]error
		var wg sync.WaitGroup
		wg.Go(func() { p.Base, errs[0] = opts.Build(ctx, opts.BaseRoot, func(*Options) {}) })
		wg.Go(func() { p.Head, errs[1] = opts.Build(ctx, opts.HeadRoot, func(*Options) {}) })
		wg.Wait()
		if err := sideError(errs); err != nil {
			return nil, err
		}
		p.count()
		return p, nil
	}
	var err error
	if p.Head, err = opts.Build(ctx, opts.HeadRoot, func(o *Options) { o.TraceApps = true }); err != nil {
		return nil, fmt.Errorf("head: %w", err)
	}
	changes, notes, err := opts.Collect(opts.BaseRoot, opts.HeadRoot)
	if err != nil {
		return nil, err
	}
	p.Notices = append(p.Notices, notes...)
	reasons := &Reasons{}
	reuse := Unaffected(p.Head, changes, reasons)
	if changes.LinksChanged() {
		p.note(notice.Warning, "affected-only: a symbolic link changed, and a render may have read through it under another name; every Application is built at both revisions")
		reuse = nil
	}
	if p.Base, err = opts.Build(ctx, opts.BaseRoot, func(o *Options) { o.Reuse = reuse }); err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	if reuse != nil && !SameSettings(p.Base, p.Head) {
		p.note(notice.Warning, "affected-only: the repoURLs taken as this repository differ between the revisions (%s at base, %s at head); every Application is built at both revisions",
			strings.Join(p.Base.RepoURLs, " "), strings.Join(p.Head.RepoURLs, " "))
		if p.Base, err = opts.Build(ctx, opts.BaseRoot, func(*Options) {}); err != nil {
			return nil, fmt.Errorf("base: %w", err)
		}
	}
	p.count()
	if u := unwatched(p.Head, changes); len(u) > 0 {
		p.note(notice.Warning, "affected-only: %d changed path(s) that an Application's render reads lie outside its %s (%s): Argo CD refreshes such an Application on a webhook only for changes under those paths, so it would not refresh it for this change; add them to the annotation",
			len(u), affected.ManifestGeneratePaths, affected.FirstPaths(u))
	}
	p.note(notice.Note, "affected-only: %d changed path(s); %d Application(s) built at both revisions, %d unaffected (built once, at head: nothing their render read changed), %d not buildable",
		changes.Len(), p.Built, p.Unaffected, p.NotBuildable)
	return p, nil
}

func (p *Pair) note(level notice.Level, format string, a ...any) {
	p.Notices = append(p.Notices, notice.Notice{Level: level, Text: fmt.Sprintf(format, a...)})
}

// count fills Built, Unaffected and NotBuildable.
func (p *Pair) count() {
	var t affected.Tally
	for _, res := range []*Result{p.Head, p.Base} {
		for _, a := range res.Apps {
			t.Add(a.App.Key(), a.Status() == "rendered", a.Reused)
		}
	}
	p.Built, p.Unaffected, p.NotBuildable = t.Counts()
}

func sideError(errs [2]error) error {
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("%s: %w", []string{"base", "head"}[i], err)
		}
	}
	return nil
}
