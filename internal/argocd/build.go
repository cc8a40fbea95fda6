package argocd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/argocd/appset"
	"github.com/routeguard/routeguard/internal/argocd/project"
	"github.com/routeguard/routeguard/internal/argocdcmp"
	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/render"
)

// Options say where to start and how to render.
type Options struct {
	// RepoRoot is the checkout; every read is confined to it.
	RepoRoot string
	// Roots are the files (an app-of-apps root Application) or
	// directories (scanned for Application and ApplicationSet manifests)
	// to start from.
	Roots []string
	// RepoURLs are the repoURLs that mean this repository. Empty: the
	// repoURL whose paths exist here most often among the manifests found.
	RepoURLs []string
	// Clusters are the clusters Argo CD knows (cluster generators and
	// destination names); ClustersKnown says they were given.
	Clusters      []appset.Cluster
	ClustersKnown bool
	// AppNamespace is the namespace Argo CD runs in (where it reads
	// AppProjects, and where Applications need no sourceNamespaces) and of
	// Application manifests that name none. Empty: the one namespace the
	// repository's Applications, ApplicationSets and AppProjects name, else
	// "argocd" (controlPlaneNamespace).
	AppNamespace string

	AllowNetwork bool
	Charts       ChartSource // chart repositories (nil: charts cannot be fetched)
	KubeVersion  string      // Helm .Capabilities.KubeVersion
	APIVersions  []string    // Helm .Capabilities.APIVersions
	Revision     string      // ARGOCD_APP_REVISION
	// NewGitFileGlobbing is applicationset.enable.new.git.file.globbing.
	NewGitFileGlobbing bool
	// PluginDiscovery: routeguard's CMP sidecar is installed with the
	// opt-in discover rule (cmp/discovery), so sources that name no tool
	// and hold the .routeguard-cmp marker render through routeguard's
	// plugin, as in Argo CD. The shipped plugin.yaml discovers nothing.
	PluginDiscovery bool
	// PluginNames are the plugin names that are routeguard (default:
	// "routeguard" and "routeguard-<version>").
	PluginNames []string
	// RenderPlugin renders a source of routeguard's plugin as `cmp
	// generate` does without its analysis: render, substitute, transform
	// (internal/action gives it; nil: such sources do not render).
	RenderPlugin PluginRenderer
	// Skip leaves out the Application with this key ("ns/name"): cmp
	// generate renders its own app itself.
	Skip string

	// Projects are AppProjects given by the operator (--project-file):
	// they replace the repository's of the same name.
	Projects []*project.Project

	MaxFileBytes int64
	Self         string // the routeguard executable (Kustomize helmCharts)
	Parallelism  int    // apps rendered at once (default GOMAXPROCS)
	// Progress, when set, is told of each Application once it is rendered
	// (or not: AppResult.Status), from the goroutine that rendered it.
	Progress func(*AppResult)

	// TraceApps records what each Application's render observed of the
	// repository in AppResult.Trace (trace.go).
	TraceApps bool
	// Reuse, when set, may give an Application's result instead of
	// rendering it (trace.go).
	Reuse ReuseFunc
}

// PluginRenderer renders the request of routeguard's plugin for one source.
type PluginRenderer func(ctx context.Context, req argocdcmp.Request) (*manifest.Set, error)

// Result is every Application found, rendered or not, by key.
type Result struct {
	RepoRoot string
	RepoURLs []string
	Apps     []*AppResult
	AppSets  []*AppSetResult
	Notices  []notice.Notice
	// Files is the number of manifest files scanned.
	Files int
	// Self is the Application Options.Skip names, when the repository
	// declares it (not rendered), and SelfCluster its destination cluster.
	Self        *Application
	SelfCluster string
	// Projects are the AppProjects found, rendered and given.
	Projects *project.Index
	clusters []appset.Cluster
	// notListed: scanned Applications a kustomization above them does not
	// list (by key; the kustomization).
	notListed map[string]string
}

// AppResult is one Application and what it rendered.
type AppResult struct {
	App *Application
	// Cluster is the destination cluster's server URL (or "name:<name>"
	// when the name is not among the known clusters).
	Cluster string
	Sources []SourceResult
	// Set is what the Application renders (nil when it failed).
	Set *manifest.Set
	// Err is why the Application could not be rendered (Argo CD would
	// report a ComparisonError); nil when it rendered.
	Err error
	// Unrendered are the scopes of sources that were skipped or failed.
	Unrendered []analysis.UnrenderedScope
	// RoutingFiles says, when the Application did not render whole, what
	// it holds of routing in this repository (files, Helm values): what
	// went unchecked.
	RoutingFiles []string
	// Trace is what its render observed (Options.TraceApps; nil without).
	Trace *confine.Trace `json:"-"`
	// Reused says the result was taken through Options.Reuse.
	Reused bool `json:"-"`
	// notes are the notices its render raised.
	notes []notice.Notice
}

// AppSetResult is one ApplicationSet.
type AppSetResult struct {
	Key       string
	Object    *manifest.Object
	Origin    string
	Generated []string // keys of the Applications it generated
	// Skipped says why it could not be expanded (a generator that needs a
	// cluster); Err is an error in it. Both leave Unrendered scopes.
	Skipped    string
	Err        error
	Clusters   []string // clusters its Applications may go to ("" for any)
	Unrendered []analysis.UnrenderedScope
}

// maxWaves bounds how deep app-of-apps nest (cycles end earlier, since an
// Application that renders itself unchanged is not rendered twice).
const maxWaves = 32

type builder struct {
	*sourceRenderer

	mu      sync.Mutex
	apps    map[string]*AppResult
	skipped *Application      // the Application Options.Skip names
	parent  map[string]string // app key -> who produced it ("" scanned)
	appsets map[string]*AppSetResult
	notices []notice.Notice
	// twins are the scanned Applications that share their namespace and
	// name with a different one, and the file telling each apart.
	twins map[*manifest.Object]string
	// twinKeys lists the keys of the adopted twins by "namespace/name".
	twinKeys map[string][]string
}

// Build finds, expands and renders every Application reachable from the
// roots. It returns an error only for bad input it cannot go past (a root
// that does not exist, an unreadable repository); each Application's
// problems are in its AppResult.
func Build(ctx context.Context, opts Options) (*Result, error) {
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = manifest.DefaultMaxFileBytes
	}
	if opts.Parallelism <= 0 {
		opts.Parallelism = runtime.GOMAXPROCS(0)
	}
	root, err := filepath.Abs(opts.RepoRoot)
	if err != nil {
		return nil, err
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return nil, fmt.Errorf("repository root %s: %w", opts.RepoRoot, err)
	}
	cr, err := confine.Open(root)
	if err != nil {
		return nil, fmt.Errorf("repository root %s: %w", opts.RepoRoot, err)
	}
	defer cr.Close()
	b := &builder{sourceRenderer: &sourceRenderer{opts: opts, repo: &thisRepo{root: root, cr: cr, urls: map[string]bool{}, max: opts.MaxFileBytes}},
		apps: map[string]*AppResult{}, parent: map[string]string{}, appsets: map[string]*AppSetResult{},
		twinKeys: map[string][]string{}}
	b.warnf = func(format string, a ...any) { b.note(notice.Warning, format, a...) }
	found, err := scan(b.repo, opts.Roots)
	if err != nil {
		return nil, err
	}
	if opts.AppNamespace == "" {
		opts.AppNamespace = b.controlPlaneNamespace(found)
		b.opts.AppNamespace = opts.AppNamespace
	}
	res := &Result{RepoRoot: root, Files: found.files}
	found.objects = b.declared(found)
	b.repoURLs(found)
	for u := range b.repo.urls {
		res.RepoURLs = append(res.RepoURLs, u)
	}
	slices.Sort(res.RepoURLs)

	var wave []*Application
	for _, o := range found.objects {
		wave = append(wave, b.adopt(o, "", opts.AppNamespace)...)
	}
	first := len(b.notices) // notices from here on come from concurrent renders
	for n := 0; len(wave) > 0; n++ {
		if n == maxWaves {
			b.note(notice.Warning, "Applications nest more than %d levels deep (app of apps of apps ...); stopped following them", maxWaves)
			break
		}
		results := b.renderWave(ctx, wave)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		wave = nil
		for _, r := range results {
			if r.Set == nil {
				continue
			}
			for _, o := range r.Set.Objects() {
				if isArgo(o, kindApplication) || isArgo(o, kindApplicationSet) {
					wave = append(wave, b.adopt(o, "Application "+r.App.Key(), cmp.Or(r.App.Spec.Destination.Namespace, opts.AppNamespace))...)
				}
			}
		}
	}
	b.dropUnlisted()
	res.Projects, res.clusters = b.projectIndex(found), opts.Clusters
	res.notListed = b.notListed(found)
	for _, k := range slices.Sorted(mapsKeys(b.apps)) {
		a := b.apps[k]
		if a.Status() != "rendered" {
			a.RoutingFiles = b.routingFiles(a)
		}
		res.Apps = append(res.Apps, a)
	}
	for _, k := range slices.Sorted(mapsKeys(b.appsets)) {
		res.AppSets = append(res.AppSets, b.appsets[k])
	}
	// Applications (and the files of one) render concurrently: sort what
	// they noted, so that the output is the same on every run.
	slices.SortStableFunc(b.notices[first:], func(x, y notice.Notice) int { return strings.Compare(x.Text, y.Text) })
	res.Notices = b.notices
	if b.skipped != nil {
		res.Self, res.SelfCluster = b.skipped, b.clusterOf(b.skipped.Spec.Destination)
	}
	return res, nil
}

// controlPlaneNamespace is the namespace Argo CD runs in when none is
// given: the one namespace every Application, ApplicationSet and
// AppProject of the scan that names one names (a repository that installs
// Argo CD into argo-cd keeps them all there: AppProjects must be in Argo
// CD's namespace), else "argocd", Argo CD's default. Repositories whose
// Applications live in several namespaces (Applications in any namespace)
// keep the default: one of them is Argo CD's, which routeguard cannot tell.
func (b *builder) controlPlaneNamespace(found *scanned) string {
	namespaces := map[string]bool{}
	for _, o := range slices.Concat(found.objects, found.projects) {
		if o.Namespace != "" {
			namespaces[o.Namespace] = true
		}
	}
	if len(namespaces) != 1 {
		return "argocd"
	}
	var ns string
	for n := range namespaces {
		ns = n
	}
	if ns != "argocd" {
		b.note(notice.Note, "every Application, ApplicationSet and AppProject of the repository that names a namespace names %s: taken as the namespace Argo CD runs in (--app-namespace says otherwise)", ns)
	}
	return ns
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func (b *builder) note(level notice.Level, format string, a ...any) {
	b.mu.Lock()
	b.notices = append(b.notices, notice.Notice{Level: level, Text: fmt.Sprintf(format, a...)})
	b.mu.Unlock()
}

// repoURLs settles which repoURLs are this repository.
func (b *builder) repoURLs(found *scanned) {
	if len(found.objects) == 0 {
		b.note(notice.Warning, "found no Argo CD Application or ApplicationSet in the %d manifest files read; give the directories that hold them (templates such as Terraform's .tpl files are not read)", found.files)
		return
	}
	for _, u := range b.opts.RepoURLs {
		b.repo.urls[NormalizeRepoURL(u)] = true
	}
	if len(b.opts.RepoURLs) > 0 {
		return
	}
	var sources []Source
	for _, o := range found.objects {
		switch {
		case isArgo(o, kindApplication):
			if app, err := decodeApplication(o); err == nil {
				sources = append(sources, app.Spec.AllSources()...)
			}
		case isArgo(o, kindApplicationSet):
			sources = append(sources, appSetSources(o)...)
		}
	}
	u, hits, total := inferRepoURLs(b.repo.cr, b.repo.root, sources)
	if u == "" {
		b.note(notice.Warning, "no Application source points at a path of this checkout, so no repoURL is taken as this repository; give it with --repo-url")
		return
	}
	b.repo.urls[NormalizeRepoURL(u)] = true
	b.note(notice.Note, "taking %s as this repository (%d of its %d sources name a path that exists here); give --repo-url to choose", u, hits, total)
}

// appSetSources lists the literal git sources of an ApplicationSet's
// template and git generators, for inferring this repository's URL.
func appSetSources(o *manifest.Object) []Source {
	var out []Source
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			if u, ok := t["repoURL"].(string); ok && !strings.Contains(u, "{{") {
				p, _ := t["path"].(string)
				if dirs, ok := t["directories"].([]any); ok && len(dirs) > 0 {
					if d, ok := dirs[0].(map[string]any); ok {
						p, _ = d["path"].(string)
						p = strings.TrimSuffix(strings.TrimSuffix(p, "*"), "/")
					}
				}
				chart, _ := t["chart"].(string)
				out = append(out, Source{RepoURL: u, Path: p, Chart: chart})
			}
			for _, e := range t {
				walk(e)
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(o.Body["spec"])
	return out
}

// adopt takes an Application or ApplicationSet found by scanning (parent
// "") or rendered by a parent, and returns the Applications to render
// next. A rendered Application replaces a scanned one of the same name
// (the parent's render is what Argo CD applies); of scanned twins, it is
// the one with its spec (renderedTwin).
func (b *builder) adopt(o *manifest.Object, parent, defaultNS string) []*Application {
	twin := ""
	if parent == "" {
		twin = b.twins[o]
	}
	if o.Namespace == "" {
		o = withNamespace(o, defaultNS)
	}
	if isArgo(o, kindApplicationSet) {
		return b.adoptAppSet(o, parent)
	}
	app, err := decodeApplication(o)
	if err != nil {
		app = &Application{Name: o.Name, Namespace: o.Namespace, Source: o.Source, Object: o, Twin: twin}
		b.mu.Lock()
		b.apps[app.Key()] = &AppResult{App: app, Err: err}
		b.parent[app.Key()] = parent
		b.mu.Unlock()
		return nil
	}
	app.Origin = originText(parent)
	app.Twin = twin
	return b.adoptApp(app, parent)
}

func originText(parent string) string {
	if parent == "" {
		return ""
	}
	if strings.HasPrefix(parent, "ApplicationSet ") {
		return "generated by " + parent
	}
	return "rendered by " + parent
}

func (b *builder) adoptApp(app *Application, parent string) []*Application {
	key := app.Key()
	if app.Namespace+"/"+app.Name == b.opts.Skip {
		b.mu.Lock()
		if b.skipped == nil {
			b.skipped = app
		}
		b.mu.Unlock()
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if app.Twin != "" {
		name := app.Namespace + "/" + app.Name
		b.twinKeys[name] = append(b.twinKeys[name], key)
	} else if twins := b.twinKeys[key]; len(twins) > 0 && parent != "" {
		if !b.renderedTwin(app, parent, twins) {
			return nil
		}
	}
	if prev, ok := b.apps[key]; ok {
		prevParent := b.parent[key]
		switch {
		case prevParent == parent:
			return nil
		case prevParent == "" && parent != "":
			b.parent[key] = parent
			if prev.App != nil && reflect.DeepEqual(prev.App.Spec, app.Spec) {
				prev.App.Origin = app.Origin
				return nil
			}
			b.apps[key] = &AppResult{App: app}
			return []*Application{app}
		case parent == "":
			return nil
		case twinParents(prevParent, parent):
			// Two Argo CD instances' roots (twins) render it: the same
			// Application twice is one app to check.
			if prev.App == nil || !reflect.DeepEqual(prev.App.Spec, app.Spec) {
				b.notices = append(b.notices, notice.Notice{Level: notice.Warning, Text: fmt.Sprintf(
					"Application %s is rendered differently by %s and by %s (one per Argo CD instance); only the first is analyzed", key, prevParent, parent)})
			}
			return nil
		}
		b.notices = append(b.notices, notice.Notice{Level: notice.Warning, Text: fmt.Sprintf(
			"Application %s is produced by both %s and %s (Argo CD would report a shared resource); using the first", key, prevParent, parent)})
		return nil
	}
	b.apps[key] = &AppResult{App: app}
	b.parent[key] = parent
	return []*Application{app}
}

// twinParents reports whether two parents ("Application ns/name@file") are
// twins: different manifests of one Application namespace and name.
func twinParents(a, b string) bool {
	an, af, aTwin := strings.Cut(a, "@")
	bn, bf, bTwin := strings.Cut(b, "@")
	return aTwin && bTwin && an == bn && af != bf
}

// renderedTwin takes an Application a parent renders under the namespace
// and name of scanned twins (b.mu held): the twin with the same spec is
// that Application, now rendered by parent, and nothing new is rendered.
// One matching none is rendered besides them (true), with a warning.
func (b *builder) renderedTwin(app *Application, parent string, twins []string) bool {
	for _, k := range twins {
		prev := b.apps[k]
		if prev.App == nil || !reflect.DeepEqual(prev.App.Spec, app.Spec) {
			continue
		}
		switch b.parent[k] {
		case "", parent:
			b.parent[k] = parent
			prev.App.Origin = app.Origin
		default:
			b.notices = append(b.notices, notice.Notice{Level: notice.Warning, Text: fmt.Sprintf(
				"Application %s is produced by both %s and %s (Argo CD would report a shared resource); using the first", k, b.parent[k], parent)})
		}
		return false
	}
	b.notices = append(b.notices, notice.Notice{Level: notice.Warning, Text: fmt.Sprintf(
		"Application %s rendered by %s is none of the manifests declaring it (%s); analyzing it besides them",
		app.Key(), parent, strings.Join(twins, ", "))})
	return true
}

// withNamespace returns a copy of o in namespace ns.
func withNamespace(o *manifest.Object, ns string) *manifest.Object {
	c := *o
	c.Body = shallowWithMetadata(o.Body)
	c.SetNamespace(ns)
	return &c
}

func shallowWithMetadata(body map[string]any) map[string]any {
	out := make(map[string]any, len(body))
	for k, v := range body {
		out[k] = v
	}
	if md, ok := body["metadata"].(map[string]any); ok {
		m := make(map[string]any, len(md))
		for k, v := range md {
			m[k] = v
		}
		out["metadata"] = m
	}
	return out
}

// renderWave renders Applications concurrently; results keep the wave's
// order.
func (b *builder) renderWave(ctx context.Context, wave []*Application) []*AppResult {
	out := make([]*AppResult, len(wave))
	sem := make(chan struct{}, b.opts.Parallelism)
	var wg sync.WaitGroup
	for i, app := range wave {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i] = b.renderApp(ctx, app)
			if b.opts.Progress != nil {
				b.opts.Progress(out[i])
			}
		}()
	}
	wg.Wait()
	b.mu.Lock()
	for _, r := range out {
		if cur, ok := b.apps[r.App.Key()]; ok && cur.App == r.App {
			b.apps[r.App.Key()] = r
		}
	}
	b.mu.Unlock()
	return out
}

// renderApp renders every source of app into one set.
func (b *builder) renderApp(ctx context.Context, app *Application) *AppResult {
	if b.opts.Reuse != nil {
		if r, ok := b.opts.Reuse(app); ok {
			out := b.reused(app, r)
			out.Reused = true
			return out
		}
	}
	rec := &appRecord{}
	if b.opts.TraceApps {
		rec.trace = confine.NewTrace()
	}
	res := b.renderSources(withAppRecord(ctx, rec), app)
	res.Trace, res.notes = rec.trace, rec.notes
	return res
}

// renderSources renders every source of app into one set.
func (b *builder) renderSources(ctx context.Context, app *Application) *AppResult {
	res := &AppResult{App: app, Cluster: b.clusterOf(app.Spec.Destination)}
	sources := app.Spec.AllSources()
	ns := app.Spec.Destination.Namespace
	makers, paths := appMakers(app, sources)
	scope := func(reason string) analysis.UnrenderedScope {
		return analysis.UnrenderedScope{Namespace: cmp.Or(ns, "*"), Reason: "Application " + app.Key() + ": " + reason, Makers: makers, Paths: paths}
	}
	if len(sources) == 0 {
		res.Err = errors.New("has no spec.source, spec.sources or spec.sourceHydrator")
		res.Unrendered = append(res.Unrendered, scope("it has no source"))
		return res
	}
	multi := app.Spec.SourceHydrator == nil && len(app.Spec.Sources) > 0
	refs := map[string]Source{}
	if multi {
		for _, s := range sources {
			if s.Ref != "" {
				refs[s.Ref] = s
			}
		}
	}
	set := manifest.NewSet()
	var dups []string // objects two sources render
	for i, src := range sources {
		s, sr, err := b.renderSource(ctx, app, i, src, refs, multi)
		if md := sr.MissingDependencies; md != nil {
			u := scope("its chart " + md.Chart + " is rendered without its dependencies, which routeguard could not have (" + dependencyNames(md) + ")")
			for _, d := range md.Missing {
				u.Makers = append(u.Makers, d.Name)
			}
			res.Unrendered = append(res.Unrendered, u)
		}
		if slices.ContainsFunc(sr.Remote, render.RemoteRef.AddsObjects) {
			res.Unrendered = append(res.Unrendered, scope("it is rendered without what its kustomization names remotely ("+sr.Remote[0].String()+")"))
		}
		for _, mc := range sr.MissingCharts {
			res.Unrendered = append(res.Unrendered, analysis.UnrenderedScope{Namespace: cmp.Or(mc.Namespace, ns, "*"),
				Reason: "Application " + app.Key() + ": its Kustomize chart " + mc.Name + " (" + mc.File + ") is not in the repository", Makers: append([]string{mc.Name}, makers...)})
		}
		var sk *skipError
		var nf *render.NotFetchedError
		switch {
		case errors.As(err, &sk):
			sr.Skipped, sr.ChartNotFetched = sk.reason, sk.chart
			res.Unrendered = append(res.Unrendered, scope(sk.reason))
		case errors.As(err, &nf):
			// Not known to be broken: it needs what routeguard did not
			// fetch (a remote base offline, a helmCharts chart).
			why := "it needs what routeguard does not fetch here"
			if nf.Tried() {
				why = "it needs what routeguard could not fetch"
			}
			sr.Skipped = why + ": " + nf.Error()
			res.Unrendered = append(res.Unrendered, scope(why))
		case err != nil:
			if len(sources) > 1 {
				err = fmt.Errorf("source %d: %w", i+1, err)
			}
			res.Err = err
			res.Sources = append(res.Sources, sr)
			res.Unrendered = append(res.Unrendered, scope("it does not render"))
			return res
		}
		if s != nil {
			sr.Objects = s.Len()
			for _, o := range s.Objects() {
				if err := set.Add(o); err != nil {
					var dup *manifest.DuplicateError
					if errors.As(err, &dup) && len(sources) > 1 {
						dups = append(dups, fmt.Sprintf("%s (%s and %s)", dup.Key, dup.First, dup.Second))
						continue
					}
					res.Err = err
					return res
				}
			}
		}
		res.Sources = append(res.Sources, sr)
	}
	if len(dups) > 0 {
		// One notice per Application, however many objects its sources
		// share (two sources of one path render all of them twice).
		b.appWarn(ctx, "Application %s: %s rendered by two of its sources: %s; Argo CD applies one of each",
			app.Key(), plural(len(dups), "object is", "objects are"), strings.Join(firstN(dups, 5), ", "))
	}
	res.Set = set
	return res
}

// plural is "1 object is" or "N objects are".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// firstN keeps the first n items, saying how many more there are.
func firstN(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	return append(slices.Clone(items[:n]), fmt.Sprintf("and %d more", len(items)-n))
}

// appMakers are the names an Application's objects are likely named
// after (its name, its charts, their release names) and the repository
// paths of its sources, to name it as the likeliest maker of an object
// routeguard could not render.
func appMakers(app *Application, sources []Source) (makers, paths []string) {
	makers = []string{app.Name}
	for _, s := range sources {
		if s.Chart != "" {
			makers = append(makers, s.Chart)
		}
		if s.Helm != nil && s.Helm.ReleaseName != "" {
			makers = append(makers, s.Helm.ReleaseName)
		}
		if s.Path != "" && s.Chart == "" {
			paths = append(paths, cleanPath(s.Path))
		}
	}
	return makers, paths
}

// clusterOf names a destination's cluster by its server URL.
func (b *builder) clusterOf(d Destination) string {
	if d.Server != "" {
		return strings.TrimRight(d.Server, "/")
	}
	for _, c := range b.opts.Clusters {
		if c.Name == d.Name {
			return strings.TrimRight(c.Server, "/")
		}
	}
	if d.Name == appset.InClusterName || d.Name == "" {
		return appset.InClusterServer
	}
	return "name:" + d.Name
}
