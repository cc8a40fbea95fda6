package action

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/routeguard/routeguard/internal/argocd"
	"github.com/routeguard/routeguard/internal/charts"
	argocmp "github.com/routeguard/routeguard/internal/cmp"
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

// clusterView adds to req the cluster view of the Application being
// generated when the repository's .routeguard.yaml declares
// argocdClusterView: the objects of the other Applications of its
// destination cluster resolve its references (never reported on), and
// what they could not render is "cannot check". It returns notices; it
// never fails the generate (no view: the app is analyzed alone).
func clusterView(ctx context.Context, env Env, req *pipeline.Request, b *argocmp.Build) []pipeline.Notice {
	cfg, err := pipeline.LoadConfig(req.ConfigFile, req.Render.Path, req.Render.RepoRoot)
	if err != nil || cfg == nil || cfg.ArgoCDClusterView == nil {
		return nil // a bad configuration is reported by the pipeline itself
	}
	v := cfg.ArgoCDClusterView
	note := func(level pipeline.Level, format string, a ...any) []pipeline.Notice {
		return []pipeline.Notice{{Level: level, Text: "argocdClusterView: " + fmt.Sprintf(format, a...)}}
	}
	if b.AppName == "" {
		return note(pipeline.LevelWarning, "ARGOCD_APP_NAME is not set, so the Application is not known; analyzed without the cluster view")
	}
	opts := argocd.Options{RepoRoot: req.Render.RepoRoot, RepoURLs: v.RepoURLs, AppNamespace: "argocd",
		AllowNetwork: req.Render.AllowNetwork, KubeVersion: req.Render.Helm.KubeVersion, APIVersions: req.Render.Helm.APIVersions,
		Revision: b.Revision, Plugins: req.Plugins, MaxFileBytes: req.Render.MaxFileBytes, Self: req.Render.Self}
	for _, r := range v.Roots {
		opts.Roots = append(opts.Roots, filepath.Join(req.Render.RepoRoot, filepath.FromSlash(r)))
	}
	if req.Render.AllowNetwork {
		c, cleanup, err := charts.Temporary()
		if err == nil {
			defer cleanup()
			opts.Charts = argocd.CacheSource(c)
		}
	}
	var projectNotices []pipeline.Notice
	if file := env.Getenv(envProjectFile); file != "" {
		ps, err := readProjectFile(file, req.Render.MaxFileBytes)
		if err != nil {
			projectNotices = note(pipeline.LevelWarning, "%s=%s: %v; the AppProjects of the repository are used", envProjectFile, file, err)
		}
		opts.Projects = ps
	}
	key := argocd.AppKey(b.AppName, opts.AppNamespace)
	vctx, cancel := context.WithTimeout(ctx, clusterViewBudget)
	defer cancel()
	view, err := argocd.ContextFor(vctx, opts, key)
	switch {
	case err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		return note(pipeline.LevelWarning, "building the cluster view took longer than %s; analyzed without it", clusterViewBudget)
	case err != nil:
		return note(pipeline.LevelWarning, "%v; analyzed without the cluster view", err)
	case view == nil:
		return note(pipeline.LevelWarning, "no Application %s under %v; analyzed without the cluster view", key, v.Roots)
	}
	req.ContextObjects = view.Objects
	req.Unrendered = append(req.Unrendered, view.Unrendered...)
	req.Analyzers = append(req.Analyzers, view.ProjectRules(env.Getenv("ARGOCD_APP_PROJECT_NAME"), time.Now()))
	return append(append(projectNotices, view.Notices...), note(pipeline.LevelNote, "Application %s, cluster %s: %d objects of its other Applications as context",
		key, view.Cluster, view.Objects.Len())...)
}
