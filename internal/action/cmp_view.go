package action

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/argocd"
	"github.com/routeguard/routeguard/internal/argocdcmp"
	"github.com/routeguard/routeguard/internal/charts"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/pipeline"
)

// clusterViewBudget bounds building the cluster view in `cmp generate`:
// a third of the repo-server's default 60 s request timeout, so that the
// app's own render and analysis keep the rest. Past it the app is
// analyzed without the view, with a notice.
const clusterViewBudget = 20 * time.Second

// envProjectFile names, in the sidecar's own environment (the operator's,
// not the Application's plugin env), a file of AppProjects that replace
// the repository's.
const envProjectFile = "ROUTEGUARD_PROJECT_FILE"

// view is the cluster view of the Application being generated: objects
// that resolve its references (never reported on), the scopes they could
// not render, and notices.
type view struct {
	objects    *manifest.Set
	unrendered []analysis.UnrenderedScope
	// analyzers check the Application against its AppProject.
	analyzers []analysis.Analyzer
	notices   []notice.Notice
}

// clusterView builds the cluster view of the Application being generated
// when the repository's .routeguard.yaml declares argocdClusterView: the
// objects of the other Applications of its destination cluster resolve its
// references, and what they could not render is "cannot check". It never
// fails the generate (no view: the app is analyzed alone, with a notice).
func clusterView(ctx context.Context, env Env, req *argocdcmp.Request, b *argocdcmp.Build) view {
	r := req.Render
	cfg, err := pipeline.LoadConfig("", r.Path, r.RepoRoot)
	if err != nil || cfg == nil || cfg.ArgoCDClusterView == nil {
		return view{} // a bad configuration is reported by the pipeline itself
	}
	v := cfg.ArgoCDClusterView
	note := func(level notice.Level, format string, a ...any) view {
		return view{notices: []notice.Notice{{Level: level, Text: "argocdClusterView: " + fmt.Sprintf(format, a...)}}}
	}
	if b.AppName == "" {
		return note(notice.Warning, "ARGOCD_APP_NAME is not set, so the Application is not known; analyzed without the cluster view")
	}
	opts := argocd.Options{RepoRoot: r.RepoRoot, RepoURLs: v.RepoURLs, AppNamespace: "argocd",
		AllowNetwork: r.AllowNetwork, KubeVersion: r.Helm.KubeVersion, APIVersions: r.Helm.APIVersions,
		Revision: b.Revision, RenderPlugin: pluginRenderer, MaxFileBytes: r.MaxFileBytes, Self: r.Self}
	for _, root := range v.Roots {
		opts.Roots = append(opts.Roots, filepath.Join(r.RepoRoot, filepath.FromSlash(root)))
	}
	if r.AllowNetwork {
		c, cleanup, err := charts.Temporary()
		if err == nil {
			defer cleanup()
			opts.Charts = argocd.CacheSource(c)
		}
	}
	var projectNotices []notice.Notice
	if file := env.Getenv(envProjectFile); file != "" {
		ps, err := readProjectFile(file, r.MaxFileBytes)
		if err != nil {
			projectNotices = note(notice.Warning, "%s=%s: %v; the AppProjects of the repository are used", envProjectFile, file, err).notices
		}
		opts.Projects = ps
	}
	key := argocd.AppKey(b.AppName, opts.AppNamespace)
	vctx, cancel := context.WithTimeout(ctx, clusterViewBudget)
	defer cancel()
	cv, err := argocd.ContextFor(vctx, opts, key)
	switch {
	case err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		return note(notice.Warning, "building the cluster view took longer than %s; analyzed without it", clusterViewBudget)
	case err != nil:
		return note(notice.Warning, "%v; analyzed without the cluster view", err)
	case cv == nil:
		return note(notice.Warning, "no Application %s under %v; analyzed without the cluster view", key, v.Roots)
	}
	return view{objects: cv.Objects, unrendered: cv.Unrendered,
		analyzers: []analysis.Analyzer{cv.ProjectRules(env.Getenv("ARGOCD_APP_PROJECT_NAME"), time.Now())},
		notices: append(append(projectNotices, cv.Notices...), note(notice.Note,
			"Application %s, cluster %s: %d objects of its other Applications as context", key, cv.Cluster, cv.Objects.Len()).notices...)}
}
