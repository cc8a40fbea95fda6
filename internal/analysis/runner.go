package analysis

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/resultcache"
)

// RunOptions is the input of one analysis run.
type RunOptions struct {
	Set              *manifest.Set // the rendered objects (what will be applied)
	ContextSet       *manifest.Set // objects from context paths: resolve references, never reported on
	Config           Settings      // severity overrides and suppressions
	Analyzers        []Analyzer    // what to run (registry.All() for everything)
	DefaultNamespace string        // namespace of objects that name none ("default" if empty)
	// Unrendered lists where objects may exist that routeguard could not
	// render (a HelmRelease whose chart could not be fetched, ...):
	// references into these scopes are RG0001 "cannot be checked", never
	// errors.
	Unrendered []UnrenderedScope
	Cluster    Cluster // the target cluster (version, API versions, CRDs), as far as known
	// Prior are findings of the stage before the analysis (a Flux tree
	// build's failures): settled with the analyzers' findings (severity
	// overrides, suppressions, order). Their codes must be in the catalog.
	Prior []Finding
	// ResultCache, when set, keeps the results of the costliest per-object
	// checks (the API server's validation) by content, across runs.
	ResultCache *resultcache.Cache
}

// Result is the outcome of a run.
type Result struct {
	Findings   []Finding // sorted by file, line, code, object
	Suppressed int       // findings dropped by suppressions (.routeguard.yaml or routeguard.io/ignore)
	Analyzers  []string  // names of the analyzers that ran, sorted
}

// Max returns the highest severity among the findings (0 when none).
func (r *Result) Max() Severity {
	var m Severity
	for _, f := range r.Findings {
		m = max(m, f.Severity)
	}
	return m
}

// RunAnalyzers builds the context once, runs the analyzers (concurrently), and
// returns their findings with the settings applied, in a deterministic
// order. An error means an analyzer failed internally (or panicked), never
// that the input has problems.
func RunAnalyzers(ctx context.Context, opts RunOptions) (*Result, error) {
	if err := opts.Config.Validate(); err != nil {
		return nil, err
	}
	if err := opts.Cluster.Validate(); err != nil {
		return nil, err
	}
	c := newContext(opts)
	analyzers := slices.Clone(opts.Analyzers)
	SortAnalyzers(analyzers)

	errs := make([]error, len(analyzers))
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	res := &Result{}
	for _, a := range analyzers {
		res.Analyzers = append(res.Analyzers, a.Metadata().Name)
	}
	// Out-of-process analyzers first, without a processor slot: their
	// goroutine mostly waits for the plugin, which works meanwhile. Then
	// the long ones, then the rest (each group in name order).
	for _, i := range startOrder(analyzers) {
		a, name, external := analyzers[i], res.Analyzers[i], outOfProcess(analyzers[i])
		wg.Add(1)
		if !external {
			sem <- struct{}{}
		}
		go func() {
			defer wg.Done()
			if !external {
				defer func() { <-sem }()
			}
			errs[i] = runOne(ctx, a, c.forAnalyzer(name))
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	findings, err := c.settle(append(c.findings(), opts.Prior...), opts.Config, res)
	if err != nil {
		return nil, err
	}
	res.Findings = findings
	return res, nil
}

// startOrder is the order the runner starts analyzers (sorted by name) in:
// the indices of the out-of-process ones, the long ones, then the rest.
func startOrder(analyzers []Analyzer) []int {
	rank := func(a Analyzer) int {
		switch {
		case outOfProcess(a):
			return 0
		case long(a):
			return 1
		}
		return 2
	}
	order := make([]int, len(analyzers))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return rank(analyzers[x]) - rank(analyzers[y]) })
	return order
}

func runOne(ctx context.Context, a Analyzer, c *Context) (err error) {
	name := a.Metadata().Name
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("analyzer %s panicked: %v (this is a routeguard bug; please report it with the input)", name, r)
		}
	}()
	if err := a.Analyze(ctx, c); err != nil {
		return fmt.Errorf("analyzer %s: %w", name, err)
	}
	return nil
}

// settle fills default severities, drops findings about context objects and
// duplicates, applies suppressions and overrides, and sorts.
func (c *Context) settle(in []Finding, s Settings, res *Result) ([]Finding, error) {
	out := make([]Finding, 0, len(in))
	seen := map[findingKey]bool{}
	for _, f := range in {
		code, known := LookupCode(f.Code)
		switch {
		case known && code.Retired:
			return nil, fmt.Errorf("analyzer %s reported code %s, which is retired", f.Analyzer, f.Code)
		case known && f.Severity == 0:
			f.Severity = code.Severity
		case !known && !isForeignCode(f.Code):
			return nil, fmt.Errorf("analyzer %s reported code %q, which is not in the catalog", f.Analyzer, f.Code)
		case !known && f.Severity == 0:
			return nil, fmt.Errorf("analyzer %s reported code %q without a severity", f.Analyzer, f.Code)
		}
		if c.isContextOnly(f.Object) {
			continue
		}
		if k := f.key(); seen[k] {
			continue
		} else {
			seen[k] = true
		}
		if c.ignoredInObject(f) || slices.ContainsFunc(s.Suppress, func(sup Suppression) bool { return sup.Matches(f) }) {
			res.Suppressed++
			continue
		}
		if sev, ok := s.Severity[f.Code]; ok {
			f.Severity = sev
		}
		out = append(out, f)
	}
	slices.SortFunc(out, compareFindings)
	return out, nil
}

// isContextOnly reports whether r names a context object that is not rendered.
func (c *Context) isContextOnly(r ObjectRef) bool {
	k := manifest.Key{Group: r.Group(), Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
	if _, ok := lookup(c.set, k, c.defaultNS); ok {
		return false
	}
	_, ok := lookup(c.contextSet, k, c.defaultNS)
	return ok
}
