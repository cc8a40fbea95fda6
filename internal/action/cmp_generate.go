package action

import (
	"bytes"
	"cmp"
	"context"
	"fmt"

	"github.com/routeguard/routeguard/internal/argocdcmp"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/pipeline"
)

// CMPGenerate renders and analyzes the working directory as the Argo CD
// Application asks (its build environment: ARGOCD_APP_*, plugin env and
// parameters), routeguard's Config Management Plugin's generate.
type CMPGenerate struct {
	// Cache keeps validation results between generations: only in a
	// directory named by its Dir or $ROUTEGUARD_CACHE_DIR (the sidecar's
	// emptyDir), never inside the unpacked repository.
	Cache CacheOptions
	// Profile is a directory to write a CPU and a heap profile of the
	// generation into (default: $ROUTEGUARD_PROFILE; none when both are
	// empty).
	Profile string
}

// CMPGenerateResult is the gate's verdict and, when it passes, the
// manifests.
type CMPGenerateResult struct {
	Verdict
	// Notices of the cluster view and of the analysis, in order.
	Notices []notice.Notice
	// Report is the findings as Argo CD shows them in the ComparisonError
	// (empty without findings).
	Report []byte
	// Manifests are the objects (and the report object the report
	// parameter asks for) as YAML, when neither a plugin nor a finding
	// failed the run.
	Manifests []byte
}

// Run generates the app in the working directory.
func (c CMPGenerate) Run(ctx context.Context, env Env) (*CMPGenerateResult, error) {
	stopProfile, err := startProfile(env, c.Profile)
	if err != nil {
		return nil, fmt.Errorf("--profile: %w", err)
	}
	defer stopProfile()
	app, err := readCMP(env)
	if err != nil {
		return nil, err
	}
	view := clusterView(ctx, env, app.req, app.build)
	an := *app.analysis
	an.ContextObjects, an.Unrendered, an.Analyzers = view.objects, view.unrendered, view.analyzers
	opts := c.Cache
	opts.NamedOnly = true
	opts.Outside = append(opts.Outside[:len(opts.Outside):len(opts.Outside)], app.req.Render.RepoRoot, app.req.Render.Path)
	cache, cacheNotices := opts.open(env)
	an.ResultCache = cache.cache
	rendered, out, err := renderApp(ctx, app.req.Render, pipeline.Input{}, cmpChanges(*app.req), &an)
	cacheNotices = append(cacheNotices, cache.close()...)
	if err != nil {
		return nil, err
	}
	res := &CMPGenerateResult{Notices: append(append(view.notices, out.Notices...), cacheNotices...)}
	res.add(out)
	label := cmp.Or(app.build.SourcePath, ".")
	if rendered.Path != "" && rendered.Path != "." {
		label = rendered.Path
	}
	if len(out.Findings) > 0 {
		var r bytes.Buffer
		argocdcmp.WriteReport(&r, out.Findings, label, string(rendered.Tool), argocdcmp.ReportLimit)
		res.Report = r.Bytes()
	}
	if out.PluginFailed || out.Failed {
		return res, nil
	}
	objs := out.Set.Objects()
	if app.settings.Report == argocdcmp.ReportConfigMap {
		rep, err := argocdcmp.ReportObject(app.build, label, string(rendered.Tool), out.Findings)
		if err != nil {
			return nil, fmt.Errorf("building the report object: %w", err)
		}
		objs = append(objs[:len(objs):len(objs)], rep)
	}
	var buf bytes.Buffer
	if err := manifest.WriteYAML(&buf, objs); err != nil {
		return nil, err
	}
	res.Manifests = buf.Bytes()
	return res, nil
}

// cmpApp is the app the Argo CD build environment describes: the
// Application's build and settings, the request for the working directory
// (confined to the unpacked repository: argocdcmp.Build.Request) and what
// its analysis runs with.
type cmpApp struct {
	build    *argocdcmp.Build
	settings argocdcmp.Settings
	req      *argocdcmp.Request
	analysis *pipeline.Analysis
}

// readCMP reads the Argo CD build environment. On error the app holds what
// was read before it (cmp parameters announces from it).
func readCMP(env Env) (cmpApp, error) {
	var app cmpApp
	b, err := argocdcmp.FromEnv(env.Getenv, env.Environ)
	if err != nil {
		return app, err
	}
	app.build = b
	if app.settings, err = b.Settings(); err != nil {
		return app, err
	}
	cwd, err := env.Getwd()
	if err != nil {
		return app, fmt.Errorf("working directory: %w", err)
	}
	host, err := pluginHost(env, "")
	if err != nil {
		return app, err
	}
	// KUBE_VERSION and KUBE_API_VERSIONS come from Argo CD.
	cluster, err := clusterOf(env, "", ClusterOptions{})
	if err != nil {
		return app, err
	}
	req := b.Request(app.settings, cwd)
	// Argo CD applies what generate prints: a chart's random functions
	// are Helm's own, never a value anyone could compute.
	req.Render.Helm.UnpredictableRandom = true
	app.req = &req
	app.analysis = &pipeline.Analysis{FailOn: req.FailOn, Plugins: host, Cluster: cluster, DefaultNamespace: req.Render.Helm.Namespace}
	return app, nil
}

// cmpChanges are what a CMP request changes in the rendered objects.
func cmpChanges(r argocdcmp.Request) pipeline.Changes {
	ch := pipeline.Changes{Overrides: pipeline.Overrides{Weights: r.Weights}}
	if len(r.Variables) > 0 {
		ch.Substitution = &pipeline.Substitution{Variables: r.Variables, Strict: true, Namespace: r.Namespace, Origin: argocdcmp.VariablesOrigin}
	}
	return ch
}
