package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/coverage"
	"github.com/routeguard/routeguard/internal/analysis/registry"
	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/flux"
	"github.com/routeguard/routeguard/internal/gctune"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/plugins"
	"github.com/routeguard/routeguard/internal/render"
	"github.com/routeguard/routeguard/internal/substitute"
	"github.com/routeguard/routeguard/internal/transform"
)

// Request is one app, or one set of objects, to take through the stage.
type Request struct {
	// Render renders an app. When nil, Objects is the input and AppDir and
	// RepoRoot say where to look for .routeguard.yaml.
	Render  *render.Options
	Objects *manifest.Set
	AppDir  string
	// RepoRoot is the repository root (set by rendering when Render is set).
	RepoRoot string

	// Config is the configuration to use. When nil, ConfigFile is read, else
	// the app directory's .routeguard.yaml, else the repository root's.
	Config     *config.Config
	ConfigFile string

	// Substitution, when set, substitutes variables with Flux's postBuild
	// semantics before the transforms.
	Substitution *Substitution
	// Overrides are what the caller's flags or parameters say; they win over
	// the configuration.
	Overrides Overrides

	// Analyze runs the analysis; without it the outcome holds only objects.
	Analyze bool
	// DefaultNamespace is the namespace of objects that name none.
	DefaultNamespace string
	// Context renders the configuration's contextPaths (network, size
	// limits, Helm capabilities); zero values take the app's render options.
	Context *render.Options
	// Plugins says where plugin binaries may come from.
	Plugins PluginHost
	// Analyzers run in process besides the built-in ones (the benchmark
	// binary links Istio's analyzers in this way).
	Analyzers []analysis.Analyzer
	// Cluster is what is known of the target cluster (Kubernetes version,
	// API versions, its CRDs) for the validation analyzers.
	Cluster analysis.Cluster
	// Unrendered says where objects may exist that the front door could
	// not render (a Flux Kustomization from another repository, a
	// HelmRelease whose chart could not be fetched, an Argo CD Application
	// whose source is elsewhere): references into these
	// scopes are "cannot check" (RG0001), never errors.
	Unrendered []analysis.UnrenderedScope
	// FluxBuilt says the objects' Flux Kustomizations and HelmReleases
	// were built (routeguard flux build). Otherwise what they install in
	// the cluster is not among the objects, and is unrendered too.
	FluxBuilt bool
	// ContextObjects resolve references besides the configuration's
	// context paths and are never reported on (the rest of a Flux tree when
	// one Kustomization of it is analyzed, the other Applications of an
	// Argo CD cluster).
	ContextObjects *manifest.Set
	// Prior are the findings of a tree build (failed Kustomizations and
	// HelmReleases, dependsOn cycles, RG0100 when nothing was checked):
	// reported with the analysis' findings, under the same severity
	// overrides and suppressions.
	Prior []analysis.Finding
}

// Substitution is a set of postBuild variables.
type Substitution struct {
	Variables map[string]string
	Strict    bool
	Namespace string // the namespace of the synthetic Kustomization
	Origin    string // what declared the variables, for messages
}

// Overrides are settings from flags or Argo CD parameters.
type Overrides struct {
	FailOn    analysis.FailOn
	Weights   map[string]map[string]int // per service; win over transforms.weights
	SyncWaves bool
}

// PluginHost says which plugins may run and how they are found: the
// operator's catalog (the repository's .routeguard.yaml only selects and
// configures among its plugins), and the executable beside which
// routeguard-istio is looked for.
type PluginHost struct {
	Catalog     *config.Plugins
	CatalogFile string
	Executable  func() (string, error)
	Getenv      func(string) string
}

// Outcome is what the stage produced.
type Outcome struct {
	Tool     render.Tool // empty when the input was objects
	Path     string      // the app directory relative to RepoRoot
	RepoRoot string
	Config   *config.Config

	// Set is what will be applied: rendered, substituted, transformed.
	Set *manifest.Set

	Findings []analysis.Finding
	// FailOn is the effective threshold (override, config, else error).
	FailOn analysis.FailOn
	// Failed: a finding reached FailOn.
	Failed bool
	// PluginFailed: a plugin failed and plugins.onError says fail.
	PluginFailed bool
	// Notices are for the user (plugin notes and failures), in order.
	Notices []Notice
	// Owners says, for a whole tree (every Argo CD Application, a Flux
	// tree), what renders each object of Set; nil otherwise.
	Owners map[manifest.Key]Owner
	// Unbuilt are the parts of the input that were not built, or built
	// partly (a tree's Kustomizations, an Argo CD repository's
	// Applications), set by the front door that built them.
	Unbuilt []Unbuilt
	// Unrendered are the scopes the analysis took as holding objects it
	// could not render (Request.Unrendered and the scopes it found).
	Unrendered []analysis.UnrenderedScope

	// skipped: the render was not checked (a warning says why), so an
	// empty set is not "renders nothing".
	skipped bool
}

// Run takes one request through the stage. An error means the input could
// not be rendered, substituted or transformed, or the configuration is
// wrong; findings are never errors.
func Run(ctx context.Context, req Request) (*Outcome, error) {
	out := &Outcome{RepoRoot: req.RepoRoot, Set: req.Objects}
	appDir := req.AppDir
	if req.Render != nil {
		opts := *req.Render
		if opts.RepeatedObject == nil {
			opts.RepeatedObject = func(d *manifest.DuplicateError) { req.Prior = append(req.Prior, repeatedObject(d)) }
		}
		res, err := render.Render(ctx, opts)
		var md *render.MissingDependenciesError
		if errors.As(err, &md) && opts.Helm.SkipMissingDependencies {
			// A chart that renders nothing without dependencies routeguard
			// cannot have: not checked, and said so (not a failed run:
			// Helm with the dependencies renders it).
			root := opts.RepoRoot
			if root == "" {
				root, _ = render.FindRepoRoot(opts.Path)
			}
			if abs, aerr := filepath.Abs(root); aerr == nil {
				root = abs
			}
			res, err = &render.Result{Tool: render.ToolHelm, Path: md.Chart, RepoRoot: root, Set: manifest.NewSet()}, nil
			out.Notices = append(out.Notices, Notice{Level: LevelWarning, Text: fmt.Sprintf(
				"%s: not checked: the chart renders nothing without its dependencies, which could not be had (%s); vendor them under charts/ (helm dependency build) to check it", md.Chart, md.Error())})
			out.Unbuilt = append(out.Unbuilt, Unbuilt{What: "path " + md.Chart, Where: md.Chart, Why: "renders nothing without its chart dependencies: " + md.Error()})
			out.skipped = true
		}
		if err != nil {
			return nil, err
		}
		out.Tool, out.Path, out.RepoRoot, out.Set = res.Tool, res.Path, res.RepoRoot, res.Set
		for _, w := range res.Warnings {
			out.Notices = append(out.Notices, Notice{Level: LevelWarning, Text: w})
		}
		appDir = filepath.Join(res.RepoRoot, filepath.FromSlash(res.Path))
		if md := res.MissingDependencies; md != nil {
			// Rendered without them (HelmOptions.SkipMissingDependencies):
			// what they install cannot be checked, and the user is told.
			ns := cmp.Or(opts.Helm.Namespace, "default")
			u := analysis.UnrenderedScope{Namespace: ns, Reason: "chart " + md.Chart + " is rendered without its dependencies, which could not be had (" + md.Error() + ")"}
			for _, d := range md.Missing {
				u.Makers = append(u.Makers, d.Name)
			}
			req.Unrendered = append(slices.Clip(req.Unrendered), u, analysis.UnrenderedScope{Namespace: "", Reason: u.Reason, Makers: u.Makers})
			out.Notices = append(out.Notices, Notice{Level: LevelWarning, Text: fmt.Sprintf(
				"%s: rendered without its chart dependencies (%s); the chart's own templates are checked, what the dependencies install in namespace %q cannot be; vendor them under charts/ (helm dependency build), or pass --allow-network", md.Chart, md.Error(), ns)})
			out.Unbuilt = append(out.Unbuilt, Unbuilt{What: "path " + res.Path, Where: res.Path, Partly: true,
				Why: "rendered without its chart dependencies: " + md.Error()})
		}
	}
	if out.Set == nil {
		return nil, errors.New("pipeline: nothing to analyze (neither Render nor Objects set)")
	}
	if out.RepoRoot == "" {
		out.RepoRoot = appDir
	}
	cfg := req.Config
	if cfg == nil {
		var err error
		var trace *confine.Trace
		if req.Render != nil {
			trace = req.Render.Trace
		}
		if cfg, err = loadConfig(req.ConfigFile, appDir, out.RepoRoot, trace); err != nil {
			return nil, err
		}
	}
	out.Config = cfg
	out.FailOn = req.Overrides.FailOn.Or(cfg.FailOn)
	if s := req.Substitution; s != nil && len(s.Variables) > 0 {
		set, err := substitute.Apply(ctx, out.Set, substitute.Kustomization(s.Namespace, s.Variables), nil,
			substitute.Options{Strict: s.Strict, Origin: s.Origin})
		if err != nil {
			return nil, err
		}
		out.Set = set
	}
	if err := transform.Apply(out.Set, MergeTransforms(cfg.Transforms, req.Overrides)); err != nil {
		return nil, err
	}
	if !req.Analyze {
		return out, nil
	}
	return out, analyze(ctx, req, out)
}

// analyze renders the context paths, loads plugins and runs every analyzer
// on out.Set.
func analyze(ctx context.Context, req Request, out *Outcome) error {
	cfg := out.Config
	ctxOpts := contextOptions(req)
	ctxSet, err := renderContext(ctx, cfg, out.RepoRoot, ctxOpts)
	if err != nil {
		return err
	}
	if req.ContextObjects != nil {
		for _, o := range req.ContextObjects.Objects() {
			if _, dup := ctxSet.Get(o.Key()); !dup {
				if err := ctxSet.Add(o); err != nil {
					return err
				}
			}
		}
	}
	settings, err := Settings(cfg)
	if err != nil {
		return err
	}
	session, err := plugins.Load(plugins.Options{Catalog: req.Plugins.Catalog, CatalogFile: req.Plugins.CatalogFile,
		Config: cfg.Plugins, ConfigFile: cfg.File, Set: out.Set, Executable: req.Plugins.Executable, Getenv: req.Plugins.Getenv})
	if err != nil {
		return err
	}
	analyzers := append(registry.All(), req.Analyzers...)
	analyzers = append(analyzers, session.Analyzers()...)
	if req.Render != nil && out.Set.Len() == 0 && !out.skipped {
		// Nothing to check is not a pass: say so (RG0007).
		analyzers = append(analyzers, coverage.Apps{Apps: []coverage.App{{
			Source: manifest.Source{File: cmp.Or(out.Path, ".")}, What: fmt.Sprintf("%s %s", out.Tool, cmp.Or(out.Path, ".")),
		}}})
	}
	unrendered := req.Unrendered
	if !req.FluxBuilt {
		var unbuilt []string
		for _, o := range out.Set.Objects() {
			if scopes := flux.UnbuiltScopes(o, "is built by Flux in the cluster, not here"); len(scopes) > 0 {
				unrendered = append(slices.Clip(unrendered), scopes...)
				unbuilt = append(unbuilt, o.String())
			}
		}
		if len(unbuilt) > 0 {
			out.Notices = append(out.Notices, Notice{Level: LevelNote, Text: fmt.Sprintf(
				"%d Flux Kustomization(s) and HelmRelease(s) (first: %s) are applied as objects; what they install is built by Flux in the cluster, so references into it cannot be checked here (RG0001); `routeguard flux build` builds them",
				len(unbuilt), unbuilt[0])})
		}
	}
	out.Unrendered = unrendered
	settled := gctune.Settled() // the objects are decoded; the analysis mostly makes garbage
	res, err := analysis.Run(ctx, analysis.RunOptions{Set: out.Set, ContextSet: ctxSet, Config: settings,
		Analyzers: analyzers, DefaultNamespace: req.DefaultNamespace, Unrendered: unrendered, Prior: req.Prior, Cluster: req.Cluster})
	settled()
	if err != nil {
		return fmt.Errorf("analyzing: %w", err)
	}
	out.Findings = res.Findings
	out.Failed = out.FailOn.Fails(res.Max())
	for _, n := range session.Notes() {
		out.Notices = append(out.Notices, Notice{Level: LevelNote, Text: n})
	}
	for _, n := range session.Warnings() {
		out.Notices = append(out.Notices, Notice{Level: LevelWarning, Text: n})
	}
	for _, f := range session.Failures() {
		if f.FailRun {
			out.PluginFailed = true
			out.Notices = append(out.Notices, Notice{Level: LevelError, Text: f.Error()})
		} else {
			out.Notices = append(out.Notices, Notice{Level: LevelWarning, Text: f.Error() + " (plugins.onError: warn; going on without it)"})
		}
	}
	return nil
}

// contextOptions are the render options of context paths: the request's
// Context, else the app's render options.
func contextOptions(req Request) render.Options {
	var o render.Options
	switch {
	case req.Context != nil:
		o = *req.Context
	case req.Render != nil:
		o = *req.Render
	}
	return o
}

// repeatedObject is the finding for an object an app renders twice: Argo
// CD applies the last one and warns (RepeatedResourceWarning), so it is
// never an error here; the later object is the one analyzed.
func repeatedObject(d *manifest.DuplicateError) analysis.Finding {
	return analysis.Finding{Code: analysis.CodeRepeatedObject, Source: d.Second, Analyzer: "render",
		Object:  analysis.RefOf(d.Object),
		Message: fmt.Sprintf("%s is defined twice, first at %s; Argo CD applies this one (the last) and reports RepeatedResourceWarning, while a Kustomize or Flux build fails on it; keep one of them", d.Key, d.First)}
}
