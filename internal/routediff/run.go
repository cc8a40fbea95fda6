// Package routediff compares the routing of two revisions of a GitOps
// repository (routeguard diff): it exports the base revision (and the head,
// unless it is the work tree) from git objects into a private temporary
// directory, takes each app path of both through the same pipeline as
// routeguard analyze, and compares the route maps, the findings and the
// other objects.
package routediff

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/coverage"
	"github.com/routeguard/routeguard/internal/codeowners"
	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/gitrev"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/manifestdiff"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/printable"
	"github.com/routeguard/routeguard/internal/routemap"
	"github.com/routeguard/routeguard/internal/routing"
	"github.com/routeguard/routeguard/internal/sharedroutes"
)

// AnalyzeFunc takes the app at path (absolute, inside repoRoot) through the
// pipeline as routeguard analyze would; without analyze, it only renders
// (and transforms). A non-nil trace goes into the render options
// (render.Options.Trace).
type AnalyzeFunc func(ctx context.Context, path, repoRoot string, analyze bool, trace *confine.Trace) (*pipeline.Outcome, error)

// Options say what to compare.
type Options struct {
	// Dir is where the command runs; relative Paths are relative to it and
	// the repository is the one holding it.
	Dir string
	// Base and Head are revisions; Base "" is the merge base of HEAD and
	// the default branch (gitrev.DefaultBase), Head "" the work tree as it
	// is (uncommitted changes included).
	Base, Head string
	// Paths are the app paths to compare (default: Dir).
	Paths []string
	// TempDir holds the exported revisions (default os.TempDir()); they are
	// removed before Run returns.
	TempDir string
	// DefaultNamespace is the namespace of objects that name none.
	DefaultNamespace string
	// ConfigFile is the --config the analysis uses ("" for the app's or
	// the repository root's .routeguard.yaml).
	ConfigFile string
	// MaxTreeBytes caps each exported revision (0: gitrev's default).
	MaxTreeBytes int64
	// Analyze takes one path of one revision through the pipeline (the
	// analyze mode: each path an app).
	Analyze AnalyzeFunc
	// AnalyzeKeep, when set beside Analyze, takes the path through the
	// pipeline with analysis, giving also the outcome as Analyze without
	// analysis gives it, of one render: a review that analyzes every path
	// at head (AnalyzePaths with analyzeSame) renders each once there.
	AnalyzeKeep func(ctx context.Context, path, repoRoot string, trace *confine.Trace) (prepared, analyzed *pipeline.Outcome, err error)
	// Build, when set instead of Analyze, builds and analyzes a whole
	// revision at once (a Flux tree, every Argo CD Application): Paths
	// are its starting points. Both revisions are built in full.
	Build BuildFunc
	// Pair, when set instead of Analyze and Build, builds both revisions
	// at once (apps.go): what the change cannot affect is built once.
	Pair PairFunc
	// Sides, when set instead of the others, gives what each path became
	// at both revisions, already analyzed (a merge of routeguard diff's
	// shards, paths.go).
	Sides SidesFunc
	// OnDemand exports the revisions as the renders ask (ondemand.go), as
	// Analyze always does: for Sides that take the paths through
	// AnalyzePaths (a shard).
	OnDemand bool
	// Analyzed, when set, is told of each path analyzed at a revision
	// (root is the revision's directory; err why it did not render), once
	// its render is final.
	Analyzed func(root, rel string, err error)
	// exportWhole exports whole what would be exported on demand (the
	// tests' reference).
	exportWhole bool
	// CodeOwners is the syntax of the head revision's CODEOWNERS file
	// ("" the host its location and sections say; shared.go).
	CodeOwners codeowners.Syntax
	// Review is what the result shows ("": routing); with the manifests,
	// Manifests tunes their diff (manifests.go).
	Review    Review
	Manifests ManifestOptions
	// AllHeadFindings analyzes at head the paths that are the same at both
	// revisions too (by default they are rendered once and not analyzed:
	// their findings cannot change), so that HeadFindings holds every
	// finding of head (--report).
	AllHeadFindings bool
	// Revisions, when set, is told which revision is built from which
	// directory, once both are exported and before either is built (the
	// Analyze and Build functions get the directory): progress names the
	// revision each build belongs to.
	Revisions func(base, head Rev, baseRoot, headRoot string)
}

// BuildFunc builds and analyzes the revision checked out at root, starting
// at rels (slash paths relative to root), as one outcome.
type BuildFunc func(ctx context.Context, root string, rels []string) (*pipeline.Outcome, error)

// Rev is one compared revision.
type Rev struct {
	Name string `json:"name"`
	Hash string `json:"hash,omitempty"` // empty for the work tree
}

// Result is the comparison.
type Result struct {
	Base    Rev                `json:"base"`
	Head    Rev                `json:"head"`
	Paths   []string           `json:"paths"`
	Routing *routemap.Diff     `json:"routing"`
	BaseMap *routemap.Map      `json:"-"`
	HeadMap *routemap.Map      `json:"-"`
	Intro   []analysis.Finding `json:"-"`
	Fixed   []analysis.Finding `json:"-"`
	// Removed are findings of base whose object head no longer has: gone
	// with the object, not fixed.
	Removed []analysis.Finding `json:"-"`
	// HeadFindings are the findings of the head revision (the findings
	// reports of --report: code scanning and Code Quality compare them with
	// the target branch's themselves); with Options.AllHeadFindings those
	// of paths the change leaves alone too, else only of those it touches.
	HeadFindings []analysis.Finding `json:"-"`
	// NotBuilt are the parts of each revision that were not built, or
	// built partly, with the routing they hold: what the review could not
	// compare.
	NotBuilt []NotBuilt `json:"notBuilt,omitempty"`
	// RoutingObjects counts the routing objects built and compared at each
	// revision.
	RoutingObjects RoutingObjects  `json:"routingObjectsChecked"`
	Objects        []KindChange    `json:"otherObjects,omitempty"`
	Notices        []notice.Notice `json:"-"`
	// NotCompared says what could be built at neither revision (the
	// warnings among Notices), for the pull request comment and JSON.
	NotCompared []string `json:"notCompared,omitempty"`
	// Reused counts the paths rendered once, without analysis: everything
	// their render read is the same in both revisions (see reuse.go).
	Reused int `json:"pathsNotRerendered"`
	// Apps counts what a whole-tree review built (nil for app paths).
	Apps *AppCounts `json:"apps,omitempty"`
	// Shared are the changes to routing another owner's Gateway carries
	// (shared.go).
	Shared []sharedroutes.Item `json:"sharedRouting"`
	// CodeOwnersFile is the CODEOWNERS file read ("" none).
	CodeOwnersFile string `json:"codeownersFile,omitempty"`
	// Review is what the result shows (Options.Review).
	Review Review `json:"-"`
	// Manifests is the manifest review (nil unless Review asks for it).
	Manifests *manifestdiff.Result `json:"manifests,omitempty"`
}

// RoutingObjects counts routing objects (Ingress, Gateway API, Istio).
type RoutingObjects struct {
	Base int `json:"base"`
	Head int `json:"head"`
}

// KindChange counts the objects of one kind (other than routing kinds)
// added, removed and changed.
type KindChange struct {
	Kind    string `json:"kind"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Changed int    `json:"changed"`
}

// RoutingChanged reports whether the routing differs.
func (r *Result) RoutingChanged() bool { return !r.Routing.Empty() }

// Compare compares the two revisions.
func Compare(ctx context.Context, opts Options) (*Result, error) {
	if n := btoi(opts.Analyze != nil) + btoi(opts.Build != nil) + btoi(opts.Pair != nil) + btoi(opts.Sides != nil); n != 1 {
		return nil, errors.New("routediff: want one of Analyze, Build, Pair and Sides")
	}
	switch opts.Review {
	case "":
		opts.Review = ReviewRouting
	case ReviewRouting, ReviewManifests, ReviewBoth:
	default:
		return nil, fmt.Errorf("--diff must be %s, got %q", strings.Join(Reviews, ", "), opts.Review)
	}
	t, err := Checkout(opts)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	rels, baseRoot, headRoot := t.Rels, t.BaseRoot, t.HeadRoot
	res := &Result{Base: t.Base, Head: t.Head, Paths: rels, Review: opts.Review}
	if opts.Revisions != nil {
		opts.Revisions(res.Base, res.Head, baseRoot, headRoot)
	}
	var baseOut, headOut map[string]*pipeline.Outcome
	switch {
	case opts.Sides != nil:
		var ps []PathSides
		if ps, err = opts.Sides(t); err == nil {
			baseOut, headOut, res.Reused = Assemble(ps, opts.AllHeadFindings)
		}
	case opts.Pair != nil:
		baseOut, headOut, res.Apps, err = buildPair(ctx, opts, rels, baseRoot, headRoot)
	case opts.Build != nil:
		baseOut, headOut, err = buildBoth(ctx, opts, rels, baseRoot, headRoot, res.Base.Name, res.Head.Name)
	default:
		baseOut, headOut, res.Reused, err = analyzeBoth(ctx, opts, t)
	}
	if err != nil {
		return nil, err
	}
	baseSet, baseFindings, _, err := merge(rels, baseOut)
	if err != nil {
		return nil, err
	}
	headSet, headFindings, notices, err := merge(rels, headOut)
	if err != nil {
		return nil, err
	}
	res.HeadFindings = headFindings
	// What could be built at neither revision is said on stderr and listed
	// in the comment: these two sources only (a warning from a render
	// may mention "not compared" too, in a chart's name).
	unchecked := append(notRendered(rels, baseOut, headOut), notCompared(baseFindings, headFindings)...)
	res.Notices = append(notices, unchecked...)
	for _, n := range unchecked {
		res.NotCompared = append(res.NotCompared, n.Text)
	}
	res.BaseMap = routemap.BuildWith(baseSet, opts.DefaultNamespace, unrenderedOf(rels, baseOut))
	res.HeadMap = routemap.BuildWith(headSet, opts.DefaultNamespace, unrenderedOf(rels, headOut))
	res.Routing = routemap.Compare(res.BaseMap, res.HeadMap)
	var gone []analysis.Finding
	res.Intro, gone = compareFindings(baseFindings, headFindings)
	res.Fixed, res.Removed = removedWith(gone, headSet, opts.DefaultNamespace)
	res.NotBuilt = notBuilt(rels, [2]string{baseRoot, headRoot}, [2]map[string]*pipeline.Outcome{baseOut, headOut})
	res.RoutingObjects = RoutingObjects{Base: coverage.Routing(baseSet), Head: coverage.Routing(headSet)}
	res.Objects = compareObjects(baseSet, headSet)
	if err := res.findShared(opts, headRoot, rels, baseOut, headOut, baseSet, headSet); err != nil {
		return nil, err
	}
	if opts.Review.manifestsWanted() {
		notices, err := res.compareManifests(opts.Manifests, rels, baseOut, headOut)
		if err != nil {
			return nil, err
		}
		res.Notices = append(res.Notices, notices...)
	}
	return res, nil
}

// Trees are the two revisions of a review, checked out: Base exported
// into a private temporary directory, Head too unless it is the work
// tree, whole or on demand (Options.OnDemand). Close removes them.
type Trees struct {
	Base, Head         Rev
	Rels               []string // the paths, relative to the repository root
	BaseRoot, HeadRoot string
	tmp                string
	// base and head are the revisions written on demand (nil: whole, or
	// the work tree).
	base, head *gitrev.OnDemand
}

// WriteUnder writes, of each revision written on demand, the files under
// the paths (slash paths from the repository root): what is read of a
// path other than by its traced renders (whether it exists, its routing
// files when it does not build; unbuilt.go), and all a review assembled
// from carried outcomes (Sides, a merge of shards) reads besides
// CODEOWNERS.
func (t *Trees) WriteUnder(rels []string) error {
	for _, od := range []*gitrev.OnDemand{t.base, t.head} {
		if od != nil {
			if err := od.WriteUnder(rels); err != nil {
				return err
			}
		}
	}
	return nil
}

// Close removes the exported revisions.
func (t *Trees) Close() error { return os.RemoveAll(t.tmp) }

// Checkout resolves and exports the revisions opts names (Dir, Base,
// Head, Paths, TempDir, MaxTreeBytes), as Compare does before it builds
// them: a review's shard builds its part of both from them.
func Checkout(opts Options) (*Trees, error) {
	repo, err := gitrev.Open(cmp.Or(opts.Dir, "."))
	if err != nil {
		return nil, err
	}
	rels, err := relPaths(repo.Root, opts.Dir, opts.Paths)
	if err != nil {
		return nil, err
	}
	var base gitrev.Revision
	if opts.Base == "" {
		base, err = repo.DefaultBase()
	} else {
		base, err = repo.Resolve(opts.Base)
	}
	if err != nil {
		return nil, fmt.Errorf("--base: %w", err)
	}
	tmp, err := os.MkdirTemp(opts.TempDir, "routeguard-diff-")
	if err != nil {
		return nil, fmt.Errorf("temporary directory: %w", err)
	}
	t := &Trees{Base: Rev{Name: base.Name, Hash: base.Hash}, Head: Rev{Name: "work tree"}, Rels: rels, tmp: tmp,
		BaseRoot: filepath.Join(tmp, "base"), HeadRoot: repo.Root}
	onDemand := (opts.OnDemand || opts.Analyze != nil) && !opts.exportWhole
	if t.base, err = export(repo, base, t.BaseRoot, opts.MaxTreeBytes, onDemand); err != nil {
		t.Close()
		return nil, err
	}
	if opts.Head != "" {
		head, err := repo.Resolve(opts.Head)
		if err != nil {
			t.Close()
			return nil, fmt.Errorf("--head: %w", err)
		}
		t.Head = Rev{Name: head.Name, Hash: head.Hash}
		t.HeadRoot = filepath.Join(tmp, "head")
		if t.head, err = export(repo, head, t.HeadRoot, opts.MaxTreeBytes, onDemand); err != nil {
			t.Close()
			return nil, err
		}
	}
	return t, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// analyzeBoth takes each path of both revisions through the pipeline,
// analyzing at both only the paths the change may affect (reuse.go).
func analyzeBoth(ctx context.Context, opts Options, t *Trees) (baseOut, headOut map[string]*pipeline.Outcome, reused int, err error) {
	ps, err := analyzePaths(ctx, opts, t.Rels, t, opts.AllHeadFindings)
	if err != nil {
		return nil, nil, 0, err
	}
	baseOut, headOut, reused = Assemble(ps, opts.AllHeadFindings)
	return baseOut, headOut, reused, nil
}

// buildBoth builds each revision in full with opts.Build; the outcome of
// a revision is filed under the first path.
func buildBoth(ctx context.Context, opts Options, rels []string, baseRoot, headRoot, baseName, headName string) (baseOut, headOut map[string]*pipeline.Outcome, err error) {
	var outs [2]*pipeline.Outcome
	var errs [2]error
	var wg sync.WaitGroup
	for i, root := range []string{baseRoot, headRoot} {
		wg.Go(func() { outs[i], errs[i] = opts.Build(ctx, root, rels) })
	}
	wg.Wait()
	for i, name := range []string{"base " + baseName, "head " + headName} {
		if errs[i] != nil {
			root := []string{baseRoot, headRoot}[i]
			return nil, nil, fmt.Errorf("%s: %s", name, strings.ReplaceAll(errs[i].Error(), root+string(filepath.Separator), ""))
		}
	}
	return map[string]*pipeline.Outcome{rels[0]: outs[0]}, map[string]*pipeline.Outcome{rels[0]: outs[1]}, nil
}

// export writes rev into dest, whole (nil) or on demand: then only
// CODEOWNERS (shared.go reads it) is written before the renders ask.
func export(repo *gitrev.Repo, rev gitrev.Revision, dest string, limit int64, onDemand bool) (*gitrev.OnDemand, error) {
	if err := os.Mkdir(dest, 0o700); err != nil {
		return nil, err
	}
	if !onDemand {
		_, err := repo.Export(rev, dest, gitrev.ExportOptions{MaxBytes: limit})
		return nil, err
	}
	od, err := repo.ExportOnDemand(rev, dest, gitrev.ExportOptions{MaxBytes: limit})
	if err != nil {
		return nil, err
	}
	return od, od.WriteUnder(codeowners.AllLocations)
}

// relPaths turns the paths into slash paths relative to the repository root.
func relPaths(root, dir string, paths []string) ([]string, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	base, err := filepath.Abs(cmp.Or(dir, "."))
	if err != nil {
		return nil, err
	}
	if r, err := filepath.EvalSymlinks(base); err == nil {
		base = r
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	var out []string
	for _, p := range paths {
		abs := p
		if !filepath.IsAbs(p) {
			abs = filepath.Join(base, p)
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("path %s is outside the repository %s", p, root)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out, nil
}

// side renders and analyzes every path under root (written on demand
// from od, when not nil) but those in skip; a path missing in this
// revision contributes nothing (an app added or removed by the change).
// With whole, od is written whole first.
func side(ctx context.Context, opts Options, root string, od *gitrev.OnDemand, rels []string, skip map[string]bool, whole bool) (map[string]*pipeline.Outcome, error) {
	var todo []string
	for _, rel := range rels {
		if exists(root, rel) && !skip[rel] {
			todo = append(todo, rel)
		}
	}
	var done func(string, error)
	if opts.Analyzed != nil {
		done = func(rel string, err error) { opts.Analyzed(root, rel, err) }
	}
	res, err := renderAll(todo, od, false, whole, func(rel string, t *confine.Trace) (*pipeline.Outcome, error) {
		return opts.Analyze(ctx, filepath.Join(root, filepath.FromSlash(rel)), root, true, t)
	}, done)
	if err != nil {
		return nil, err
	}
	m := make(map[string]*pipeline.Outcome, len(todo))
	for i, rel := range todo {
		out := res[i].out
		if res[i].err != nil {
			if out, err = renderFailure(ctx, root, rel, res[i].err); err != nil {
				return nil, err
			}
		}
		m[rel] = out
	}
	return m, nil
}

// renderFailure turns a path that does not render at one revision into an
// outcome with no objects and one RG0009 finding, so the diff goes on with
// the other paths. Compared like any finding, a path that fails at both
// revisions (an app analyze cannot build on its own, such as a Flux app
// whose names come from postBuild variables) is neither introduced nor
// fixed, and one the change breaks is an introduced error. A cancelled or
// timed-out run stays an error.
func renderFailure(ctx context.Context, root, rel string, err error) (*pipeline.Outcome, error) {
	if ctx.Err() != nil {
		return nil, err
	}
	msg := strings.ReplaceAll(err.Error(), root+string(filepath.Separator), "")
	sev := analysis.SeverityError
	if c, ok := analysis.LookupCode(analysis.CodeAppNotRendered); ok {
		sev = c.Severity
	}
	return &pipeline.Outcome{Set: manifest.NewSet(), Findings: []analysis.Finding{{
		Code: analysis.CodeAppNotRendered, Severity: sev, Source: manifest.Source{File: rel}, Analyzer: "diff",
		Message: rel + " does not render: " + msg}}}, nil
}

// failed reports whether out is a renderFailure.
func failed(out *pipeline.Outcome) bool {
	return out != nil && len(out.Findings) == 1 && out.Findings[0].Analyzer == "diff" && out.Set.Len() == 0
}

// notRendered says which paths render at neither revision: they are not
// compared, and say so.
func notRendered(rels []string, base, head map[string]*pipeline.Outcome) []notice.Notice {
	var out []notice.Notice
	for _, rel := range rels {
		if failed(base[rel]) && failed(head[rel]) {
			out = append(out, notice.Notice{Level: notice.Warning,
				Text: head[rel].Findings[0].Message + " (at both revisions: not compared)"})
		}
	}
	return out
}

// eachIndex calls fn(0..n-1), GOMAXPROCS at a time.
func eachIndex(n int, fn func(int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(n, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// merge puts the outcomes of the paths together, in path order.
func merge(rels []string, outs map[string]*pipeline.Outcome) (*manifest.Set, []analysis.Finding, []notice.Notice, error) {
	set := manifest.NewSet()
	var findings []analysis.Finding
	var notices []notice.Notice
	for _, rel := range rels {
		out := outs[rel]
		if out == nil {
			continue
		}
		for _, o := range out.Set.Objects() {
			if _, dup := set.Get(o.Key()); !dup {
				if err := set.Add(o); err != nil {
					return nil, nil, nil, err
				}
			}
		}
		findings = append(findings, out.Findings...)
		notices = append(notices, out.Notices...)
	}
	return set, findings, notices, nil
}

// unrenderedOf gathers the unrendered scopes of a revision's outcomes.
func unrenderedOf(rels []string, outs map[string]*pipeline.Outcome) []analysis.UnrenderedScope {
	var out []analysis.UnrenderedScope
	for _, rel := range rels {
		if o := outs[rel]; o != nil {
			out = append(out, o.Unrendered...)
		}
	}
	return out
}

// uncheckedCodes are the findings that say part of a revision was not
// built. (RG0100, no routing object, is not one: the objects were built
// and compared.)
var uncheckedCodes = map[string]bool{
	analysis.CodeAppNotRendered: true, analysis.CodeFluxBuildFailed: true,
	analysis.CodeHelmReleaseFailed: true, analysis.CodeNotBuilt: true,
}

// notCompared warns about what could be checked at neither revision (the
// same "not built" or "nothing checked" finding on both sides): the diff
// cannot say whether the change touches it, and an empty diff must not
// read as "nothing changed" there. Paths that do not render in the analyze
// mode have their own warning (notRendered).
func notCompared(base, head []analysis.Finding) []notice.Notice {
	inBase := map[string]bool{}
	for _, f := range base {
		inBase[findingKey(f)] = true
	}
	var out []notice.Notice
	for _, f := range head {
		if !uncheckedCodes[f.Code] || f.Analyzer == "diff" || !inBase[findingKey(f)] {
			continue
		}
		what := f.Subject()
		if f.Object.Kind == "" {
			what = f.Source.File
		}
		msg, _, _ := strings.Cut(f.Message, "\n")
		msg = printable.Cut(msg, 300)
		out = append(out, notice.Notice{Level: notice.Warning,
			Text: fmt.Sprintf("%s %s at both revisions, not compared: %s", f.Code, what, msg)})
	}
	return out
}

// findingKey matches findings across revisions: code and object (lines and
// wording move with unrelated edits).
func findingKey(f analysis.Finding) string {
	if f.Object.Kind == "" { // about a path (renderFailure), not an object
		return f.Code + "\x00" + f.Source.File
	}
	if f.Code == analysis.CodeNoSchema { // said once per kind, on its first object
		group, _, _ := strings.Cut(f.Object.APIVersion, "/")
		if !strings.Contains(f.Object.APIVersion, "/") {
			group = ""
		}
		return f.Code + "\x00" + group + "\x00" + f.Object.Kind
	}
	return f.Code + "\x00" + f.Subject()
}

// compareFindings returns the findings of head that base does not have and
// those of base that head no longer has, counting repeats.
func compareFindings(base, head []analysis.Finding) (introduced, fixed []analysis.Finding) {
	count := map[string]int{}
	for _, f := range base {
		count[findingKey(f)]++
	}
	for _, f := range head {
		k := findingKey(f)
		if count[k] > 0 {
			count[k]--
			continue
		}
		introduced = append(introduced, f)
	}
	count = map[string]int{}
	for _, f := range head {
		count[findingKey(f)]++
	}
	for _, f := range base {
		k := findingKey(f)
		if count[k] > 0 {
			count[k]--
			continue
		}
		fixed = append(fixed, f)
	}
	return introduced, fixed
}

// compareObjects counts the changes of objects that are not routing objects
// (those are the route map's), by kind.
func compareObjects(base, head *manifest.Set) []KindChange {
	byKind := map[string]*KindChange{}
	get := func(o *manifest.Object) *KindChange {
		k := o.Kind
		if g := o.Group(); g != "" {
			k += "." + g
		}
		if byKind[k] == nil {
			byKind[k] = &KindChange{Kind: k}
		}
		return byKind[k]
	}
	skip := func(o *manifest.Object) bool {
		return analysis.IsRouting(o.GroupKind()) || (o.Group() == routing.GatewayAPIGroup && o.Kind == "ReferenceGrant")
	}
	for _, o := range head.Objects() {
		if skip(o) {
			continue
		}
		b, ok := base.Get(o.Key())
		switch {
		case !ok:
			get(o).Added++
		case !reflect.DeepEqual(b.Body, o.Body):
			get(o).Changed++
		}
	}
	for _, o := range base.Objects() {
		if _, ok := head.Get(o.Key()); !ok && !skip(o) {
			get(o).Removed++
		}
	}
	var out []KindChange
	for _, c := range byKind {
		if c.Added+c.Removed+c.Changed > 0 {
			out = append(out, *c)
		}
	}
	slices.SortFunc(out, func(a, b KindChange) int { return cmp.Compare(a.Kind, b.Kind) })
	return out
}
