package pipeline

import (
	"context"
	"fmt"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/registry"
	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/gctune"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/pluginhost"
	"github.com/routeguard/routeguard/internal/resultcache"
)

// Analysis says how to analyze a prepared outcome.
type Analysis struct {
	// FailOn is what the caller's flags or parameters say (it wins over
	// the configuration's failOn).
	FailOn analysis.FailOn
	// DefaultNamespace is the namespace of objects that name none.
	DefaultNamespace string
	// ContextPaths renders the configuration's contextPaths (the source
	// knows how: network, size limits, Helm capabilities).
	ContextPaths ContextRenderer
	// Plugins says where plugin binaries may come from.
	Plugins PluginHost
	// ResultCache keeps validation results across runs (--cache-dir);
	// nil: none.
	ResultCache *resultcache.Cache
	// Analyzers run in process besides the built-in ones (the benchmark
	// binary links Istio's analyzers in this way; argocd analyze adds the
	// coverage of each cluster's Applications).
	Analyzers []analysis.Analyzer
	// Cluster is what is known of the target cluster (Kubernetes version,
	// API versions, its CRDs) for the validation analyzers.
	Cluster analysis.Cluster
	// Unrendered says where objects may exist that the source could not
	// render (a Flux Kustomization from another repository, a HelmRelease
	// whose chart could not be fetched, an Argo CD Application whose
	// source is elsewhere, a Flux object applied as an object): references
	// into these scopes are "cannot check" (RG0001), never errors.
	Unrendered []analysis.UnrenderedScope
	// ContextObjects resolve references besides the configuration's
	// context paths and are never reported on (the rest of a Flux tree when
	// one Kustomization of it is analyzed, the other Applications of an
	// Argo CD cluster).
	ContextObjects *manifest.Set
	// Prior are the findings of the source (objects rendered twice, failed
	// Kustomizations and HelmReleases, dependsOn cycles, RG0100 when
	// nothing was checked): reported with the analysis' findings, under
	// the same severity overrides and suppressions.
	Prior []analysis.Finding
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

// Analyze renders the context paths, loads plugins and runs every analyzer
// on o.Set. An error means a context path does not render, the settings or
// plugins are wrong, or the analysis could not run; findings are never
// errors.
func (o *Outcome) Analyze(ctx context.Context, a Analysis) error {
	cfg := o.Config
	o.FailOn = a.FailOn.Or(cfg.FailOn)
	ctxSet, err := a.contextSet(ctx, cfg, o.RepoRoot)
	if err != nil {
		return err
	}
	settings, err := Settings(cfg)
	if err != nil {
		return err
	}
	session, err := pluginhost.Load(pluginhost.Options{Catalog: a.Plugins.Catalog, CatalogFile: a.Plugins.CatalogFile,
		Config: cfg.Plugins, ConfigFile: cfg.File, Set: o.Set, Executable: a.Plugins.Executable, Getenv: a.Plugins.Getenv})
	if err != nil {
		return err
	}
	analyzers := append(registry.All(), a.Analyzers...)
	analyzers = append(analyzers, session.Analyzers()...)
	o.Unrendered = a.Unrendered
	settled := gctune.Settled() // the objects are decoded; the analysis mostly makes garbage
	res, err := analysis.RunAnalyzers(ctx, analysis.RunOptions{Set: o.Set, ContextSet: ctxSet, Config: settings,
		Analyzers: analyzers, DefaultNamespace: a.DefaultNamespace, Unrendered: a.Unrendered, Prior: a.Prior, Cluster: a.Cluster,
		ResultCache: a.ResultCache})
	settled()
	if err != nil {
		return fmt.Errorf("analyzing: %w", err)
	}
	o.Findings = res.Findings
	o.Failed = o.FailOn.Fails(res.Max())
	for _, n := range session.Notes() {
		o.Notices = append(o.Notices, notice.Notice{Level: notice.Note, Text: n})
	}
	for _, n := range session.Warnings() {
		o.Notices = append(o.Notices, notice.Notice{Level: notice.Warning, Text: n})
	}
	for _, f := range session.Failures() {
		if f.FailRun {
			o.PluginFailed = true
			o.Notices = append(o.Notices, notice.Notice{Level: notice.Error, Text: f.Error()})
		} else {
			o.Notices = append(o.Notices, notice.Notice{Level: notice.Warning, Text: f.Error() + " (plugins.onError: warn; going on without it)"})
		}
	}
	return nil
}
