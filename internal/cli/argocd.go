package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/coverage"
	"github.com/routeguard/routeguard/internal/argocd"
	"github.com/routeguard/routeguard/internal/argocd/appset"
	"github.com/routeguard/routeguard/internal/charts"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/printable"
	"github.com/routeguard/routeguard/internal/render"
	"github.com/routeguard/routeguard/internal/report"
	"github.com/routeguard/routeguard/internal/version"
)

func newArgoCDCommand(env *Env) *cobra.Command {
	c := group("argocd", "Build every Argo CD Application of a repository as Argo CD would, and analyze each cluster as one",
		newArgoCDBuildCommand(env), newArgoCDAnalyzeCommand(env), newArgoCDDiffCommand(env))
	c.Long = `Finds the Argo CD Applications and ApplicationSets under PATH (an app-of-apps
root Application file, or a directory to scan; default .), expands the
ApplicationSets offline (list, git directories and files of this checkout,
clusters from --cluster, matrix, merge), follows the Applications that
Applications render (app of apps), and renders each Application whose sources
are in this repository with its source options: Helm, Kustomize, directory
(jsonnet too) and routeguard's own plugin. Charts from chart repositories
(chart sources, https/oci chart dependencies) are fetched with --fetch-charts
(or --allow-network) into --chart-cache DIR, and rendered from it offline.
Sources elsewhere are skipped with a notice. See docs/argocd.md.`
	return c
}

// argocdFlags are the flags both argocd commands share.
type argocdFlags struct {
	repoRoot        string
	repoURLs        []string
	clusters        []string
	appNamespace    string
	allowNetwork    bool
	fetchCharts     bool
	chartCache      string
	kubeVersion     string
	apiVersions     []string
	revision        string
	pluginDiscovery bool
	newGlobbing     bool
	maxFileMiB      int64
	projects        projectFlags
}

func (f *argocdFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.repoRoot, "repo-root", "", "the checkout every source of this repository is read from (default: the git top level above the first PATH)")
	fs.StringArrayVar(&f.repoURLs, "repo-url", nil, "a repoURL that means this repository (repeatable; default: the one whose paths exist here most often)")
	fs.StringArrayVar(&f.clusters, "cluster", nil, "a cluster Argo CD knows, NAME=SERVER[,LABEL=VALUE...][,annotation:KEY=VALUE...] (repeatable); cluster generators and destination names use them, and without any cluster generators are skipped")
	fs.StringVar(&f.appNamespace, "app-namespace", "", "namespace Argo CD runs in, and of Application manifests that name none (default: the one namespace the repository's Applications, ApplicationSets and AppProjects name, else argocd)")
	fs.BoolVar(&f.allowNetwork, "allow-network", false, "allow remote Kustomize bases, and fetch charts (chart sources, chart dependencies) from https:// and oci:// repositories")
	fs.BoolVar(&f.fetchCharts, "fetch-charts", false, "fetch charts (chart sources, chart dependencies) from the https:// and oci:// repositories the Applications name, and nothing else: remote Kustomize bases stay offline (what CI on pull requests uses)")
	fs.StringVar(&f.chartCache, "chart-cache", "", "directory that keeps fetched charts (shared with flux build); without --allow-network or --fetch-charts only charts it holds are rendered")
	fs.StringVar(&f.kubeVersion, "kube-version", "", "Kubernetes version for Helm capabilities (default: $KUBE_VERSION)")
	fs.StringSliceVar(&f.apiVersions, "api-versions", nil, "API versions for Helm capabilities (default: $KUBE_API_VERSIONS)")
	fs.StringVar(&f.revision, "revision", "", "the commit Argo CD would render (ARGOCD_APP_REVISION in ${...} substitution)")
	fs.BoolVar(&f.pluginDiscovery, "cmp-discovery", false, "routeguard's CMP sidecar is installed with the opt-in discover rule (cmp/discovery): sources that name no tool and hold the .routeguard-cmp marker render through routeguard's plugin")
	fs.BoolVar(&f.newGlobbing, "new-git-file-globbing", false, "git file generators use doublestar globs (applicationset.enable.new.git.file.globbing) instead of git pathspecs")
	fs.Int64Var(&f.maxFileMiB, "max-file-size", manifest.DefaultMaxFileBytes>>20, "largest manifest file to read, in MiB")
	f.projects.register(cmd)
}

// build runs argocd.Build for the command line's paths.
func (f *argocdFlags) build(ctx context.Context, env *Env, paths []string) (*argocd.Result, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	if f.maxFileMiB <= 0 {
		return nil, fmt.Errorf("--max-file-size must be positive, got %d", f.maxFileMiB)
	}
	root := f.repoRoot
	if root == "" {
		var err error
		if root, err = render.FindRepoRoot(paths[0]); err != nil {
			return nil, err
		}
	}
	clusters, err := parseClusters(f.clusters)
	if err != nil {
		return nil, err
	}
	apiVersions := f.apiVersions
	if len(apiVersions) == 0 {
		if v := env.Getenv("KUBE_API_VERSIONS"); v != "" {
			apiVersions = strings.Split(v, ",")
		}
	}
	host, err := pluginHost(env, "")
	if err != nil {
		return nil, err
	}
	chartSrc, cleanup, err := f.charts()
	if err != nil {
		return nil, err
	}
	defer cleanup()
	projects, err := f.projects.load(f.maxFileMiB << 20)
	if err != nil {
		return nil, err
	}
	return argocd.Build(ctx, argocd.Options{Projects: projects,
		RepoRoot: root, Roots: paths, RepoURLs: f.repoURLs, Clusters: clusters, ClustersKnown: len(clusters) > 0,
		AppNamespace: f.appNamespace, AllowNetwork: f.allowNetwork, Charts: chartSrc,
		KubeVersion: cmp.Or(f.kubeVersion, env.Getenv("KUBE_VERSION")), APIVersions: apiVersions,
		Revision: f.revision, PluginDiscovery: f.pluginDiscovery, NewGitFileGlobbing: f.newGlobbing,
		Plugins:      host,
		MaxFileBytes: f.maxFileMiB << 20,
	})
}

// charts is the chart source: the --chart-cache directory (offline unless
// --allow-network or --fetch-charts), a temporary cache with the network and
// no directory,
// else none (chart sources and dependencies are skipped with a notice).
func (f *argocdFlags) charts() (argocd.ChartSource, func(), error) {
	if f.chartCache != "" {
		if err := os.MkdirAll(f.chartCache, 0o755); err != nil {
			return nil, nil, fmt.Errorf("--chart-cache %s: %w", f.chartCache, err)
		}
		return argocd.CacheSource(&charts.Cache{Dir: f.chartCache, Offline: !f.allowNetwork && !f.fetchCharts}), func() {}, nil
	}
	if !f.allowNetwork && !f.fetchCharts {
		return nil, func() {}, nil
	}
	c, cleanup, err := charts.Temporary()
	if err != nil {
		return nil, nil, fmt.Errorf("chart cache: %w", err)
	}
	return argocd.CacheSource(c), cleanup, nil
}

// parseClusters reads --cluster NAME=SERVER[,LABEL=VALUE...][,annotation:KEY=VALUE...]
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

func newArgoCDBuildCommand(env *Env) *cobra.Command {
	var f argocdFlags
	var output string
	cmd := &cobra.Command{
		Use:   "build [PATH...]",
		Short: "Render every Application as Argo CD would and print the manifests, Application by Application",
		Long: `Prints what each Application renders: YAML (a "# Application ns/name" comment
before each Application's objects) or JSON (a list of {application, cluster,
sources, objects}). Skipped sources and notices go to stderr. Exit 2, with
nothing on stdout, when an Application does not render.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "yaml" && output != "json" {
				return fail("--output must be yaml or json, got %q", output)
			}
			res, err := f.build(cmd.Context(), env, args)
			if err != nil {
				return fail("%v", err)
			}
			pipeline.WriteNotices(env.Stderr, append(res.Notices, skipNotices(res)...))
			var failed []string
			for _, a := range res.Apps {
				if a.Err != nil {
					failed = append(failed, fmt.Sprintf("%s: Application %s does not render: %v", a.App.Source, a.App.Key(), a.Err))
				}
			}
			for _, s := range res.AppSets {
				if s.Err != nil {
					failed = append(failed, fmt.Sprintf("%s: ApplicationSet %s: %v", s.Object.Source, s.Key, s.Err))
				}
			}
			if len(failed) > 0 {
				return fail("%s", strings.Join(failed, "\nrouteguard: "))
			}
			now, err := f.projects.time()
			if err != nil {
				return fail("%v", err)
			}
			pipeline.WriteNotices(env.Stderr, projectNotices(argocd.CheckProjects(res, now)))
			writeSummary(env, res, nil)
			out, err := writeArgoCDBuild(output, res)
			if err != nil {
				return fail("%v", err)
			}
			return writeStdout(env, out)
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "yaml", "output format: yaml or json")
	return cmd
}

// argocdApp is one Application in build's JSON output.
type argocdApp struct {
	Application string            `json:"application"`
	Cluster     string            `json:"cluster"`
	Origin      string            `json:"origin,omitempty"`
	Sources     []argocdSource    `json:"sources"`
	Objects     []json.RawMessage `json:"objects"`
}

type argocdSource struct {
	Tool    string `json:"tool,omitempty"`
	Where   string `json:"where,omitempty"`
	Objects int    `json:"objects"`
	Skipped string `json:"skipped,omitempty"`
}

func writeArgoCDBuild(format string, res *argocd.Result) ([]byte, error) {
	var buf bytes.Buffer
	if format == "yaml" {
		for _, a := range res.Apps {
			fmt.Fprintf(&buf, "# Application %s (cluster %s)\n", printable.Line(a.App.Key()), printable.Line(a.Cluster))
			if a.Set == nil || a.Set.Len() == 0 {
				continue
			}
			if err := manifest.WriteYAML(&buf, a.Set.Objects()); err != nil {
				return nil, err
			}
		}
		return buf.Bytes(), nil
	}
	apps := []argocdApp{}
	for _, a := range res.Apps {
		ja := argocdApp{Application: a.App.Key(), Cluster: a.Cluster, Origin: a.App.Origin, Sources: []argocdSource{}, Objects: []json.RawMessage{}}
		for _, s := range a.Sources {
			ja.Sources = append(ja.Sources, argocdSource{Tool: s.Tool, Where: s.Where, Objects: s.Objects, Skipped: s.Skipped})
		}
		if a.Set != nil {
			for _, o := range a.Set.Objects() {
				data, err := json.Marshal(o.Body)
				if err != nil {
					return nil, err
				}
				ja.Objects = append(ja.Objects, data)
			}
		}
		apps = append(apps, ja)
	}
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(apps); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// skipNotices says which sources and ApplicationSets were skipped.
func skipNotices(res *argocd.Result) []pipeline.Notice {
	var out []pipeline.Notice
	for _, a := range res.Apps {
		for _, s := range a.Sources {
			if s.Skipped != "" {
				out = append(out, pipeline.Notice{Level: pipeline.LevelWarning, Text: fmt.Sprintf(
					"Application %s: skipped: %s; what it deploys in namespace %q cannot be checked", a.App.Key(), s.Skipped, cmp.Or(a.App.Spec.Destination.Namespace, "*"))})
			}
		}
		out = append(out, a.LeftOut()...)
	}
	for _, s := range res.AppSets {
		if s.Skipped != "" {
			out = append(out, pipeline.Notice{Level: pipeline.LevelWarning, Text: fmt.Sprintf("ApplicationSet %s: %s", s.Key, s.Skipped)})
		}
	}
	return out
}

// writeSummary says on stderr what was built (and checked).
func writeSummary(env *Env, res *argocd.Result, outcomes []argocd.ClusterOutcome) {
	count, objects := map[string]int{}, 0
	for _, a := range res.Apps {
		count[a.Status()]++
		if a.Set != nil {
			objects += a.Set.Len()
		}
	}
	fmt.Fprintf(env.Stderr, "routeguard: argocd: %d Applications (%d rendered, %d partly rendered, %d skipped, %d failed), %d ApplicationSets, %d objects",
		len(res.Apps), count["rendered"], count["partial"], count["skipped"], count["failed"], len(res.AppSets), objects)
	if outcomes != nil {
		routing := 0
		for _, o := range outcomes {
			routing += coverageRouting(o)
		}
		fmt.Fprintf(env.Stderr, ", %d clusters, %d routing objects checked", len(outcomes), routing)
	}
	fmt.Fprintln(env.Stderr)
	pipeline.WriteUnbuilt(env.Stderr, res.Unbuilt(), 20)
}

func newArgoCDAnalyzeCommand(env *Env) *cobra.Command {
	var f argocdFlags
	var af analysisFlags
	var output string
	cmd := &cobra.Command{
		Use:   "analyze [PATH...]",
		Short: "Render every Application and analyze all Applications of each cluster together",
		Long: `Builds like 'routeguard argocd build', then analyzes each destination cluster's
objects in one run, so that references between Applications resolve (a
Gateway in the platform app, routes in team apps). Each finding names its
Application. Apps that do not render are RG0009, apps that render nothing
RG0007, a cluster without routing objects RG0100 (an error when Applications
that did not render hold routing, else an info). Prints the report on stdout;
exit 1 when a finding reaches the failing severity.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var buf bytes.Buffer
			w, err := report.New(output, &buf, report.Options{Color: env.IsTerminal && output == "text", Version: version.Get().Version})
			if err != nil {
				return fail("--output: %v", err)
			}
			res, err := f.build(cmd.Context(), env, args)
			if err != nil {
				return fail("%v", err)
			}
			host, err := pluginHost(env, af.plugins)
			if err != nil {
				return fail("%v", err)
			}
			cluster, err := clusterOf(env, f.kubeVersion, af.cluster)
			if err != nil {
				return fail("%v", err)
			}
			now, err := f.projects.time()
			if err != nil {
				return fail("%v", err)
			}
			outcomes, err := argocd.Analyze(cmd.Context(), res, argocd.AnalyzeOptions{ConfigFile: af.config, FailOn: af.failOn,
				Plugins: host, Cluster: cluster, Now: now,
				Context: &render.Options{AllowNetwork: f.allowNetwork, MaxFileBytes: f.maxFileMiB << 20}})
			if err != nil {
				return fail("%v", err)
			}
			notices := append(res.Notices, skipNotices(res)...)
			failed, pluginFailed := false, false
			var all []analysis.Finding
			for _, o := range outcomes {
				notices = append(notices, o.Notices...)
				all = append(all, o.Findings...)
				failed = failed || o.Failed
				pluginFailed = pluginFailed || o.PluginFailed
			}
			pipeline.WriteNotices(env.Stderr, notices)
			writeSummary(env, res, outcomes)
			if err := report.WriteAll(w, all); err != nil {
				return fail("writing report: %v", err)
			}
			if err := writeStdout(env, buf.Bytes()); err != nil {
				return err
			}
			switch {
			case pluginFailed:
				return exitWith(ExitError)
			case failed:
				return exitWith(ExitFindings)
			}
			return nil
		},
	}
	f.register(cmd)
	af.register(cmd)
	cmd.Flags().Lookup("config").Usage = "path of the .routeguard.yaml with the analysis settings (default: the repository root's)"
	cmd.Flags().StringVarP(&output, "output", "o", "text", "report format: "+strings.Join(report.Formats(), ", "))
	return cmd
}

func coverageRouting(o argocd.ClusterOutcome) int { return coverage.Routing(o.Cluster.Set) }
