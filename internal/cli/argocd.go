package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/action"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/report"
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

// registerArgoCD binds the flags every argocd command shares.
func registerArgoCD(cmd *cobra.Command, o *action.ArgoCDOptions) {
	fs := cmd.Flags()
	fs.StringVar(&o.RepoRoot, "repo-root", "", "the checkout every source of this repository is read from (default: the git top level above the first PATH)")
	fs.StringArrayVar(&o.RepoURLs, "repo-url", nil, "a repoURL that means this repository (repeatable; default: the one whose paths exist here most often)")
	fs.StringArrayVar(&o.Clusters, "cluster", nil, "a cluster Argo CD knows, NAME=SERVER[,LABEL=VALUE...][,annotation:KEY=VALUE...] (repeatable); cluster generators and destination names use them, and without any cluster generators are skipped")
	fs.StringVar(&o.AppNamespace, "app-namespace", "", "namespace Argo CD runs in, and of Application manifests that name none (default: the one namespace the repository's Applications, ApplicationSets and AppProjects name, else argocd)")
	fs.BoolVar(&o.AllowNetwork, "allow-network", false, "allow remote Kustomize bases, and fetch charts (chart sources, chart dependencies) from https:// and oci:// repositories")
	fs.BoolVar(&o.FetchCharts, "fetch-charts", false, "fetch charts (chart sources, chart dependencies) from the https:// and oci:// repositories the Applications name, and nothing else: remote Kustomize bases stay offline (what CI on pull requests uses)")
	fs.StringVar(&o.ChartCache, "chart-cache", "", "directory that keeps fetched charts (shared with flux build); without --allow-network or --fetch-charts only charts it holds are rendered")
	fs.StringVar(&o.KubeVersion, "kube-version", "", "Kubernetes version for Helm capabilities (default: $KUBE_VERSION)")
	fs.StringSliceVar(&o.APIVersions, "api-versions", nil, "API versions for Helm capabilities (default: $KUBE_API_VERSIONS)")
	fs.StringVar(&o.Revision, "revision", "", "the commit Argo CD would render (ARGOCD_APP_REVISION in ${...} substitution)")
	fs.BoolVar(&o.PluginDiscovery, "cmp-discovery", false, "routeguard's CMP sidecar is installed with the opt-in discover rule (cmp/discovery): sources that name no tool and hold the .routeguard-cmp marker render through routeguard's plugin")
	fs.BoolVar(&o.NewGitFileGlobbing, "new-git-file-globbing", false, "git file generators use doublestar globs (applicationset.enable.new.git.file.globbing) instead of git pathspecs")
	fs.Int64Var(&o.MaxFileMiB, "max-file-size", manifest.DefaultMaxFileBytes>>20, "largest manifest file to read, in MiB")
	fs.StringArrayVar(&o.ProjectFiles, "project-file", nil, "a file of AppProject manifests, as Argo CD has them (repeatable); they replace the repository's of the same name")
	fs.StringVar(&o.Now, "now", "", "the time the projects' sync windows are evaluated at, RFC 3339 (default: now)")
}

func newArgoCDBuildCommand(env *Env) *cobra.Command {
	a := &action.ArgoCDBuild{}
	var pf progressFlag
	cmd := &cobra.Command{
		Use:   "build [PATH...]",
		Short: "Render every Application as Argo CD would and print the manifests, Application by Application",
		Long: `Prints what each Application renders: YAML (a "# Application ns/name" comment
before each Application's objects) or JSON (a list of {application, cluster,
sources, objects}). Skipped sources and notices go to stderr. Exit 2, with
nothing on stdout, when an Application does not render.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			meter, err := pf.meter(env, "argocd build")
			if err != nil {
				return err
			}
			a.ArgoCD.Progress = appDone(meter)
			res, err := a.Run(cmd.Context(), env.action(), args)
			finish(meter, err)
			if res != nil {
				notice.Write(env.Stderr, res.Notices)
			}
			if err != nil {
				return fail("%v", err)
			}
			notice.Write(env.Stderr, res.ProjectNotices)
			fmt.Fprintf(env.Stderr, "routeguard: %s\n", res.Summary)
			notice.WriteUnbuilt(env.Stderr, res.Build.Unbuilt(), 20)
			return writeStdout(env, res.Manifests)
		},
	}
	registerArgoCD(cmd, &a.ArgoCD)
	cmd.Flags().StringVarP(&a.Output, "output", "o", "yaml", "output format: yaml or json")
	pf.register(cmd)
	return cmd
}

func newArgoCDAnalyzeCommand(env *Env) *cobra.Command {
	a := &action.ArgoCDAnalyze{Color: env.IsTerminal}
	var reports reportFlags
	var pf progressFlag
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
			targets, err := reports.targets("output", explicit(cmd, "output", a.Output))
			if err != nil {
				return err
			}
			a.Reports = targets
			meter, err := pf.meter(env, "argocd analyze")
			if err != nil {
				return err
			}
			a.ArgoCD.Progress = appDone(meter)
			res, err := a.Run(cmd.Context(), env.action(), args)
			if res != nil {
				sum := report.Summarize(res.Findings)
				meter.Findings("", sum.Errors, sum.Warnings, sum.Infos)
			}
			finish(meter, err)
			if res != nil {
				notice.Write(env.Stderr, res.Notices)
				fmt.Fprintf(env.Stderr, "routeguard: %s\n", res.Summary)
				notice.WriteUnbuilt(env.Stderr, res.Build.Unbuilt(), 20)
			}
			if err != nil {
				return fail("%v", err)
			}
			stdout, err := writeReports(env, res.Reports, !res.PluginFailed)
			if err != nil {
				return err
			}
			if stdout == nil {
				stdout = res.Report
			}
			if err := writeStdout(env, stdout); err != nil {
				return err
			}
			return exitWith(verdictCode(res.Verdict))
		},
	}
	registerArgoCD(cmd, &a.ArgoCD)
	registerAnalysis(cmd, &a.Analysis)
	cmd.Flags().Lookup("config").Usage = "path of the .routeguard.yaml with the analysis settings (default: the repository root's)"
	cmd.Flags().StringVarP(&a.Output, "output", "o", "text", "report format: "+strings.Join(report.Formats(), ", "))
	reports.register(cmd, "-o's report")
	pf.register(cmd)
	return cmd
}
