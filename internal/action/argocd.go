package action

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis/coverage"
	"github.com/routeguard/routeguard/internal/argocd"
	"github.com/routeguard/routeguard/internal/argocd/appset"
	"github.com/routeguard/routeguard/internal/argocdcmp"
	"github.com/routeguard/routeguard/internal/charts"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
)

// ArgoCDOptions say how the Applications of a repository are built (argocd
// build, analyze and diff).
type ArgoCDOptions struct {
	// RepoRoot is the checkout every source of this repository is read
	// from (default: the git top level above the first path).
	RepoRoot string
	// RepoURLs mean this repository (default: the one whose paths exist
	// here most often).
	RepoURLs []string
	// Clusters Argo CD knows: NAME=SERVER[,LABEL=VALUE...][,annotation:KEY=VALUE...].
	Clusters []string
	// AppNamespace is the namespace Argo CD runs in, and of Application
	// manifests that name none ("": the one namespace the repository's
	// Applications, ApplicationSets and AppProjects name, else argocd).
	AppNamespace string
	AllowNetwork bool
	// FetchCharts fetches the charts the Applications name, and nothing
	// else (remote Kustomize bases stay offline).
	FetchCharts bool
	// ChartCache keeps fetched charts (shared with flux build).
	ChartCache string
	// KubeVersion and APIVersions are Helm's capabilities (default
	// $KUBE_VERSION, $KUBE_API_VERSIONS).
	KubeVersion string
	APIVersions []string
	// Revision is the commit Argo CD would render (ARGOCD_APP_REVISION).
	Revision string
	// PluginDiscovery: routeguard's CMP sidecar has its discover rule.
	PluginDiscovery bool
	// NewGitFileGlobbing: git file generators use doublestar globs.
	NewGitFileGlobbing bool
	// MaxFileMiB is the largest manifest file to read, in MiB.
	MaxFileMiB int64
	// ProjectFiles are files of AppProject manifests, as Argo CD has them:
	// they replace the repository's of the same name.
	ProjectFiles []string
	// Now is when the projects' sync windows are evaluated, RFC 3339 (""
	// the current time).
	Now string
	// Progress, when set, is told of each Application once it is rendered.
	Progress func(*argocd.AppResult)

	// tune adjusts the build's options (argocd diff: traces, reuse).
	tune func(*argocd.Options)
}

// build runs argocd.Build for paths (none: ".").
func (o ArgoCDOptions) build(ctx context.Context, env Env, paths []string) (*argocd.Result, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	if o.MaxFileMiB <= 0 {
		return nil, fmt.Errorf("--max-file-size must be positive, got %d", o.MaxFileMiB)
	}
	root := o.RepoRoot
	if root == "" {
		var err error
		if root, err = render.FindRepoRoot(paths[0]); err != nil {
			return nil, err
		}
	}
	clusters, err := parseClusters(o.Clusters)
	if err != nil {
		return nil, err
	}
	apiVersions := o.APIVersions
	if len(apiVersions) == 0 {
		if v := env.Getenv("KUBE_API_VERSIONS"); v != "" {
			apiVersions = strings.Split(v, ",")
		}
	}
	chartSrc, cleanup, err := o.charts()
	if err != nil {
		return nil, err
	}
	defer cleanup()
	projects, err := o.projects(o.MaxFileMiB << 20)
	if err != nil {
		return nil, err
	}
	opts := argocd.Options{Projects: projects,
		RepoRoot: root, Roots: paths, RepoURLs: o.RepoURLs, Clusters: clusters, ClustersKnown: len(clusters) > 0,
		AppNamespace: o.AppNamespace, AllowNetwork: o.AllowNetwork, Charts: chartSrc,
		KubeVersion: cmp.Or(o.KubeVersion, env.Getenv("KUBE_VERSION")), APIVersions: apiVersions,
		Revision: o.Revision, PluginDiscovery: o.PluginDiscovery, NewGitFileGlobbing: o.NewGitFileGlobbing,
		RenderPlugin: pluginRenderer,
		MaxFileBytes: o.MaxFileMiB << 20,
		Progress:     o.Progress,
	}
	if o.tune != nil {
		o.tune(&opts)
	}
	return argocd.Build(ctx, opts)
}

// ClusterOutcome is the analysis of one destination cluster.
type ClusterOutcome struct {
	Cluster *argocd.Cluster
	*pipeline.Outcome
}

// analyze runs the analysis once per destination cluster over all its
// Applications' objects, with the unrendered scopes of what could not be
// rendered, and names each finding's Application. The configuration is
// the repository root's (or a.ConfigFile), without its transforms: Argo CD
// applies none, and routeguard's plugin sources already had theirs.
func (o ArgoCDOptions) analyze(ctx context.Context, env Env, res *argocd.Result, a AnalysisOptions) ([]ClusterOutcome, error) {
	an, err := a.analysis(env, o.KubeVersion, "default")
	if err != nil {
		return nil, err
	}
	now, err := o.now()
	if err != nil {
		return nil, err
	}
	cfg, err := pipeline.LoadConfig(a.ConfigFile, res.RepoRoot, res.RepoRoot)
	if err != nil {
		return nil, err
	}
	noTransforms := *cfg
	noTransforms.Transforms = nil
	an.ContextPaths = contextPaths(render.Options{AllowNetwork: o.AllowNetwork, MaxFileBytes: o.MaxFileMiB << 20})
	var out []ClusterOutcome
	for _, check := range res.Checks(argocd.CheckOptions{CRDs: an.Cluster.CRDs, Now: now}) {
		c := check.Cluster
		ca := *an
		ca.Analyzers, ca.Unrendered = check.Analyzers, c.Unrendered
		oc, err := runObjects(ctx, pipeline.Input{Objects: c.Set, AppDir: res.RepoRoot, RepoRoot: res.RepoRoot, Config: &noTransforms},
			pipeline.Changes{}, &ca)
		if err != nil {
			return nil, fmt.Errorf("cluster %s: %w", c.Name(), err)
		}
		c.Attribute(oc.Findings)
		oc.Notices = append(slices.Clone(c.Notices), oc.Notices...)
		out = append(out, ClusterOutcome{Cluster: c, Outcome: oc})
	}
	return out, nil
}

// pluginRenderer renders the sources of routeguard's plugin for argocd
// build as cmp generate does, without the analysis.
func pluginRenderer(ctx context.Context, req argocdcmp.Request) (*manifest.Set, error) {
	_, out, err := renderApp(ctx, req.Render, pipeline.Input{}, cmpChanges(req), nil)
	if err != nil {
		return nil, err
	}
	return out.Set, nil
}

// charts is the chart source: the chart cache directory (offline unless
// AllowNetwork or FetchCharts), a temporary cache with the network and no
// directory,
// else none (chart sources and dependencies are skipped with a notice).
func (o ArgoCDOptions) charts() (argocd.ChartSource, func(), error) {
	if o.ChartCache != "" {
		if err := os.MkdirAll(o.ChartCache, 0o755); err != nil {
			return nil, nil, fmt.Errorf("--chart-cache %s: %w", o.ChartCache, err)
		}
		return argocd.CacheSource(&charts.Cache{Dir: o.ChartCache, Offline: !o.AllowNetwork && !o.FetchCharts}), func() {}, nil
	}
	if !o.AllowNetwork && !o.FetchCharts {
		return nil, func() {}, nil
	}
	c, cleanup, err := charts.Temporary()
	if err != nil {
		return nil, nil, fmt.Errorf("chart cache: %w", err)
	}
	return argocd.CacheSource(c), cleanup, nil
}

// parseClusters reads NAME=SERVER[,LABEL=VALUE...][,annotation:KEY=VALUE...]
// (a label key cannot hold ":", so the prefix is unambiguous).
func parseClusters(specs []string) ([]appset.Cluster, error) {
	var out []appset.Cluster
	for _, s := range specs {
		parts := strings.Split(s, ",")
		name, server, ok := strings.Cut(parts[0], "=")
		if !ok || name == "" || server == "" {
			return nil, fmt.Errorf("--cluster %q: want NAME=SERVER[,LABEL=VALUE...], e.g. prod=https://prod.example.com:6443,env=prod", s)
		}
		c := appset.Cluster{Name: name, Server: server}
		for _, l := range parts[1:] {
			k, v, ok := strings.Cut(l, "=")
			if !ok || k == "" {
				return nil, fmt.Errorf("--cluster %q: label %q is not LABEL=VALUE or annotation:KEY=VALUE", s, l)
			}
			if a, ok := strings.CutPrefix(k, "annotation:"); ok && a != "" {
				if c.Annotations == nil {
					c.Annotations = map[string]string{}
				}
				c.Annotations[a] = v
				continue
			}
			if c.Labels == nil {
				c.Labels = map[string]string{}
			}
			c.Labels[k] = v
		}
		out = append(out, c)
	}
	return out, nil
}

// buildNotices are the build's notices and what it skipped.
func buildNotices(res *argocd.Result) []notice.Notice {
	out := append([]notice.Notice(nil), res.Notices...)
	for _, a := range res.Apps {
		for _, s := range a.Sources {
			if s.Skipped != "" {
				out = append(out, notice.Notice{Level: notice.Warning, Text: fmt.Sprintf(
					"Application %s: skipped: %s; what it deploys in namespace %q cannot be checked", a.App.Key(), s.Skipped, cmp.Or(a.App.Spec.Destination.Namespace, "*"))})
			}
		}
		out = append(out, a.LeftOut()...)
	}
	for _, s := range res.AppSets {
		if s.Skipped != "" {
			out = append(out, notice.Notice{Level: notice.Warning, Text: fmt.Sprintf("ApplicationSet %s: %s", s.Key, s.Skipped)})
		}
	}
	return out
}

// summary says what was built (and, with outcomes, checked).
func summary(res *argocd.Result, outcomes []ClusterOutcome) string {
	count, objects := map[string]int{}, 0
	for _, a := range res.Apps {
		count[a.Status()]++
		if a.Set != nil {
			objects += a.Set.Len()
		}
	}
	s := fmt.Sprintf("argocd: %d Applications (%d rendered, %d partly rendered, %d skipped, %d failed), %d ApplicationSets, %d objects",
		len(res.Apps), count["rendered"], count["partial"], count["skipped"], count["failed"], len(res.AppSets), objects)
	if outcomes != nil {
		routing := 0
		for _, o := range outcomes {
			routing += coverage.Routing(o.Cluster.Set)
		}
		s += fmt.Sprintf(", %d clusters, %d routing objects checked", len(outcomes), routing)
	}
	return s
}
