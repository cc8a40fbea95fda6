package cli

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/registry"
	"github.com/routeguard/routeguard/internal/cmp"
	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/gctune"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/plugins"
	"github.com/routeguard/routeguard/internal/render"
	"github.com/routeguard/routeguard/internal/substitute"
	"github.com/routeguard/routeguard/internal/transform"
)

func runCMPGenerate(ctx context.Context, env *Env, args []string) int {
	fs := flagSet("cmp generate", "routeguard cmp generate [--render-only]", env)
	renderOnly := fs.Bool("render-only", false, "skip analysis (a baseline for measuring the plugin; not for production)")
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		return failf(env, "cmp generate takes no arguments; it renders the working directory")
	}
	return runBuffered(ctx, env, "cmp generate", func() cmpOutcome { return cmpGenerate(ctx, env, *renderOnly) })
}

// cmpApp is an app rendered with the Application's settings.
type cmpApp struct {
	build    *cmp.Build
	settings cmp.Settings
	opts     render.Options
	res      *render.Result
	cfg      *config.Config
	set      *manifest.Set // after substitution and transforms
	label    string        // the app's path for messages
}

// renderCMPApp reads the build environment, renders the working directory
// confined to the unpacked repository, substitutes the Application's
// variables (Flux semantics) and applies transforms (.routeguard.yaml, with
// the weights parameter overriding per service): everything before analysis.
func renderCMPApp(ctx context.Context, env *Env) (*cmpApp, int, error) {
	b, err := cmp.FromEnv(env.Getenv, env.Environ)
	if err != nil {
		return nil, ExitError, err
	}
	s, err := b.Settings()
	if err != nil {
		return nil, ExitError, err
	}
	cwd, err := env.Getwd()
	if err != nil {
		return nil, ExitError, fmt.Errorf("working directory: %w", err)
	}
	rf := renderFlags{repoRoot: cmp.RepoRoot(cwd, b.SourcePath), allowNetwork: s.AllowNetwork,
		maxFileMiB: manifest.DefaultMaxFileBytes >> 20, release: s.Release, values: s.ValuesFiles, set: s.HelmSet()}
	opts, err := rf.options(env, cwd)
	if err != nil {
		return nil, ExitError, err
	}
	app := &cmpApp{build: b, settings: s, opts: opts, label: firstNonEmpty(b.SourcePath, ".")}
	app.res, err = render.Render(ctx, opts)
	if err != nil {
		return app, ExitError, err
	}
	if app.res.Path != "" && app.res.Path != "." {
		app.label = app.res.Path
	}
	appDir := filepath.Join(app.res.RepoRoot, filepath.FromSlash(app.res.Path))
	if app.cfg, err = loadConfig("", appDir, app.res.RepoRoot); err != nil {
		return app, ExitError, err
	}
	app.set = app.res.Set
	if len(s.Variables) > 0 {
		ks := substitute.Kustomization(b.AppNamespace, s.Variables)
		app.set, err = substitute.Apply(ctx, app.set, ks, nil, substitute.Options{Strict: true,
			Origin: "the Application's substitution-variables parameter"})
		if err != nil {
			return app, ExitError, err
		}
	}
	if err := transform.Apply(app.set, transformsFor(app.cfg, s)); err != nil {
		return app, ExitError, err
	}
	return app, ExitOK, nil
}

// transformsFor merges the weights parameter into the configured transforms.
func transformsFor(cfg *config.Config, s cmp.Settings) *config.Transforms {
	if cfg.Transforms == nil && len(s.Weights) == 0 {
		return nil
	}
	t := &config.Transforms{Weights: map[string]map[string]int{}}
	if cfg.Transforms != nil {
		t.SyncWaves = cfg.Transforms.SyncWaves
		for svc, w := range cfg.Transforms.Weights {
			t.Weights[svc] = w
		}
	}
	for svc, w := range s.Weights {
		t.Weights[svc] = w
	}
	return t
}

func cmpGenerate(ctx context.Context, env *Env, renderOnly bool) cmpOutcome {
	app, code, err := renderCMPApp(ctx, env)
	if err != nil {
		return cmpFail(code, "%v", err)
	}
	set := app.set
	var findings []analysis.Finding
	var pluginNotes bytes.Buffer // plugin notes and failures, for stderr
	failed := false
	if !renderOnly {
		cfg := app.cfg
		ctxSet, err := renderContext(ctx, cfg, app.res.RepoRoot, app.opts)
		if err != nil {
			return cmpFail(ExitError, "%v", err)
		}
		settings, err := settingsOf(cfg)
		if err != nil {
			return cmpFail(ExitError, "%v", err)
		}
		if err := cmpCheckPlugins(cfg, app.res.RepoRoot); err != nil {
			return cmpFail(ExitError, "%v", err)
		}
		session, err := plugins.Load(plugins.Options{Config: cfg.Plugins, ConfigFile: cfg.File, RepoRoot: app.res.RepoRoot,
			Set: set, Executable: env.Executable, Getenv: env.Getenv})
		if err != nil {
			return cmpFail(ExitError, "%v", err)
		}
		cluster, err := clusterOf(env, "", clusterFlags{}) // KUBE_VERSION, KUBE_API_VERSIONS from Argo CD
		if err != nil {
			return cmpFail(ExitError, "%v", err)
		}
		settled := gctune.Settled() // the objects are decoded; the analysis mostly makes garbage
		res, err := analysis.Run(ctx, analysis.RunOptions{Set: set, ContextSet: ctxSet, Config: settings,
			Analyzers: append(registry.All(), session.Analyzers()...), DefaultNamespace: app.opts.Helm.Namespace, Cluster: cluster})
		settled()
		if err != nil {
			return cmpFail(ExitError, "analyzing %s: %v", app.label, err)
		}
		if session.Report(&pluginNotes) {
			// A plugin failed and plugins.onError says fail: no manifests.
			return cmpOutcome{stderr: pluginNotes.Bytes(), code: ExitError}
		}
		findings = res.Findings
		failOn := firstNonEmpty(app.settings.FailOn, cfg.FailOn, "error")
		if failOn != "never" {
			min, _ := analysis.ParseSeverity(failOn)
			failed = res.Max() >= min && res.Max() > 0
		}
	}
	var stderr bytes.Buffer
	if failed {
		// The report comes first: Argo CD shows stderr as the ComparisonError.
		cmp.WriteReport(&stderr, findings, app.label, string(app.res.Tool), cmp.ReportLimit)
		stderr.Write(pluginNotes.Bytes())
		return cmpOutcome{stderr: stderr.Bytes(), code: ExitFindings}
	}
	stderr.Write(pluginNotes.Bytes())
	objs := set.Objects()
	if app.settings.Report == cmp.ReportConfigMap {
		rep, err := cmp.ReportObject(app.build, app.label, string(app.res.Tool), findings)
		if err != nil {
			return cmpFail(ExitError, "building the report object: %v", err)
		}
		objs = append(objs[:len(objs):len(objs)], rep)
	}
	if len(findings) > 0 {
		// Logged by argocd-cmp-server; the report object shows it in the UI.
		cmp.WriteReport(&stderr, findings, app.label, string(app.res.Tool), cmp.ReportLimit)
	}
	var out bytes.Buffer
	if err := manifest.WriteYAML(&out, objs); err != nil {
		return cmpFail(ExitError, "%v", err)
	}
	return cmpOutcome{stdout: out.Bytes(), stderr: stderr.Bytes(), code: ExitOK}
}

// cmpCheckPlugins refuses plugin binaries that the repository could supply:
// the sidecar runs nothing from the repository it renders. Plugins must
// live in the sidecar image (an absolute plugins.dir or path outside the
// unpacked repository) and be pinned by checksum.
func cmpCheckPlugins(cfg *config.Config, repoRoot string) error {
	if cfg.Plugins == nil {
		return nil
	}
	if cfg.Plugins.InsecureSkipVerify {
		return fmt.Errorf("%s: plugins.insecureSkipVerify is refused by cmp generate: the Argo CD sidecar runs only plugins pinned by checksum; remove it", cfg.File)
	}
	specs, err := plugins.Specs(cfg.Plugins, cfg.File, repoRoot)
	if err != nil {
		return err
	}
	rootReal, err := filepath.EvalSymlinks(repoRoot)
	if err != nil {
		return err
	}
	for _, sp := range specs {
		p := sp.Path
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if rel, err := filepath.Rel(rootReal, p); err == nil && filepath.IsLocal(rel) {
			return fmt.Errorf("%s: plugin %s is inside the repository (%s); cmp generate runs nothing from the repository it renders: "+
				"put plugin binaries in the sidecar image and name them by absolute path (plugins.dir), see docs/cmp.md", cfg.File, sp.Name, filepath.ToSlash(rel))
		}
	}
	return nil
}
