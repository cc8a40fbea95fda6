package cli

import (
	"cmp"
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/argocd"
	"github.com/routeguard/routeguard/internal/flux"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
	"github.com/routeguard/routeguard/internal/routediff"
)

// The diff of whole trees: the Flux tree of a cluster directory, every
// Argo CD Application of a repository. Each revision is built in full as
// 'flux build --all' and 'argocd analyze' build it, and compared as
// 'routeguard diff' compares apps.

func newFluxDiffCommand(env *Env) *cobra.Command {
	var f fluxBuildFlags
	var d diffFlags
	cmd := &cobra.Command{
		Use:   "diff [PATH]",
		Short: "Compare the traffic routing of the Flux tree at two revisions (pull request review)",
		Long: `Builds the whole tree under PATH (default .; a cluster directory, as
'routeguard flux build --all' builds it: every Kustomization and HelmRelease,
postBuild substitution with Flux's code) at two revisions, analyzes each, and
compares them as 'routeguard diff' compares apps: route entries, attachments,
listeners, TLS hosts, ReferenceGrants, findings introduced and fixed, other
objects by kind. Both revisions are built in full (a substitution variable
set anywhere in the tree can change any Kustomization below it).

` + diffLong,
		Example: "  routeguard flux diff --base origin/main clusters/production",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			wd := workDir(env)
			return d.run(cmd, env, args, routediff.Options{ConfigFile: f.analysis.config,
				Build: func(ctx context.Context, root string, rels []string) (*pipeline.Outcome, error) {
					return fluxDiffBuild(ctx, env, f, wd, root, rels[0])
				}})
		},
	}
	f.registerTree(cmd)
	f.analysis.register(cmd)
	_ = cmd.Flags().MarkHidden("fail-on")
	d.register(cmd)
	return cmd
}

// fluxDiffBuild builds and analyzes the Flux tree at rel in the revision
// checked out at root. --source paths inside the repository name the
// revision's copy of them.
func fluxDiffBuild(ctx context.Context, env *Env, f fluxBuildFlags, wd, root, rel string) (*pipeline.Outcome, error) {
	f.all, f.analyze, f.output, f.repoRoot = true, true, "yaml", root
	f.sources = revisionPaths(f.sources, wd, root)
	opts, err := fluxOptions(env, &f, filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	res, err := flux.BuildTree(ctx, opts)
	if err != nil {
		return nil, err
	}
	unapplied, err := fluxTransformsUnapplied(root, res.Nodes)
	if err != nil {
		return nil, err
	}
	prior := append(append(res.Findings, unapplied...), res.NothingChecked(res.Objects, res.Nodes)...)
	out, err := fluxAnalyze(ctx, env, &f, opts, res, res.Objects, nil, prior)
	if err != nil {
		return nil, err
	}
	for _, n := range res.Notices {
		out.Notices = append(out.Notices, pipeline.Notice{Level: pipeline.Level(n.Level), Text: n.Text})
	}
	out.Owners = map[manifest.Key]pipeline.Owner{}
	for _, n := range res.Nodes {
		for _, o := range n.Objects {
			if _, dup := out.Owners[o.Key()]; !dup {
				out.Owners[o.Key()] = pipeline.Owner{Kind: n.Object.Kind, Name: n.Object.Namespace + "/" + n.Object.Name}
			}
		}
	}
	out.Unbuilt = pipeline.FluxUnbuilt(res)
	return out, nil
}

// revisionPaths rewrites KIND/NS/NAME=PATH sources whose PATH lies in the
// repository of wd to the same path under root.
func revisionPaths(sources []string, wd, root string) []string {
	top, err := render.FindRepoRoot(wd)
	if err != nil {
		return sources
	}
	out := make([]string, len(sources))
	for i, s := range sources {
		out[i] = s
		ref, p, ok := strings.Cut(s, "=")
		if !ok {
			continue
		}
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(wd, p)
		}
		if r, err := filepath.Rel(top, abs); err == nil && filepath.IsLocal(r) || r == "." {
			out[i] = ref + "=" + filepath.Join(root, r)
		}
	}
	return out
}

func newArgoCDDiffCommand(env *Env) *cobra.Command {
	var f argocdFlags
	var af analysisFlags
	var d diffFlags
	cmd := &cobra.Command{
		Use:   "diff [PATH...]",
		Short: "Compare the traffic routing of every Application at two revisions (pull request review)",
		Long: `Builds every Application and ApplicationSet under PATH (default .) at two
revisions as 'routeguard argocd analyze' does, analyzes each cluster, and
compares them as 'routeguard diff' compares apps: route entries,
attachments, listeners, TLS hosts, ReferenceGrants, findings introduced and
fixed, other objects by kind. The objects of all destination clusters go
into one route map. Both revisions are built in full.

` + diffLong,
		Example: "  routeguard argocd diff --base origin/main argocd/",
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.projects.now == "" { // one time for both revisions
				f.projects.now = time.Now().UTC().Format(time.RFC3339)
			}
			return d.run(cmd, env, args, routediff.Options{ConfigFile: af.config,
				Build: func(ctx context.Context, root string, rels []string) (*pipeline.Outcome, error) {
					return argocdDiffBuild(ctx, env, f, &af, root, rels)
				}})
		},
	}
	f.register(cmd)
	af.register(cmd)
	_ = cmd.Flags().MarkHidden("repo-root")
	_ = cmd.Flags().MarkHidden("fail-on")
	d.register(cmd)
	return cmd
}

// argocdDiffBuild builds and analyzes every Application from rels in the
// revision checked out at root, as one outcome (all clusters).
func argocdDiffBuild(ctx context.Context, env *Env, f argocdFlags, af *analysisFlags, root string, rels []string) (*pipeline.Outcome, error) {
	f.repoRoot = root
	paths := make([]string, len(rels))
	for i, r := range rels {
		paths[i] = filepath.Join(root, filepath.FromSlash(r))
	}
	res, err := f.build(ctx, env, paths)
	if err != nil {
		return nil, err
	}
	host, err := pluginHost(env, af.plugins)
	if err != nil {
		return nil, err
	}
	cluster, err := clusterOf(env, f.kubeVersion, af.cluster)
	if err != nil {
		return nil, err
	}
	now, err := f.projects.time()
	if err != nil {
		return nil, err
	}
	outcomes, err := argocd.Analyze(ctx, res, argocd.AnalyzeOptions{ConfigFile: af.config, Plugins: host, Cluster: cluster, Now: now,
		Context: &render.Options{AllowNetwork: f.allowNetwork, MaxFileBytes: f.maxFileMiB << 20}})
	if err != nil {
		return nil, err
	}
	out := &pipeline.Outcome{Set: manifest.NewSet(), RepoRoot: root, Owners: map[manifest.Key]pipeline.Owner{}}
	out.Notices = append(res.Notices, skipNotices(res)...)
	projects := map[string]string{}
	for _, a := range res.Apps {
		projects[a.App.Key()] = cmp.Or(a.App.Spec.Project, "default")
	}
	out.Unbuilt = res.Unbuilt()
	var all []analysis.Finding
	for _, o := range outcomes {
		for k, app := range o.Cluster.Owner {
			if _, dup := out.Owners[k]; !dup {
				out.Owners[k] = pipeline.Owner{Kind: "Application", Name: app, Project: projects[app]}
			}
		}
		for _, obj := range o.Cluster.Set.Objects() {
			if _, dup := out.Set.Get(obj.Key()); !dup {
				if err := out.Set.Add(obj); err != nil {
					return nil, err
				}
			}
		}
		all = append(all, o.Findings...)
		out.Notices = append(out.Notices, o.Notices...)
	}
	out.Findings = all
	return out, nil
}
