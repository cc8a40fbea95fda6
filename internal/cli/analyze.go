package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/registry"
	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/gctune"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/plugins"
	"github.com/routeguard/routeguard/internal/render"
	"github.com/routeguard/routeguard/internal/report"
)

func init() {
	register(command{name: "analyze", summary: "render apps and report what would break their traffic routing", run: runAnalyze})
}

const analyzeUsage = `routeguard analyze [PATH...] [flags]
  routeguard analyze - < manifests.yaml

Renders each PATH like 'routeguard render' (or reads a YAML/JSON stream on
stdin with '-') and runs every analyzer. Settings come from .routeguard.yaml
in the app directory or the repository root (or --config).`

// analyzeFlags are the flags of analyze beyond the render flags.
type analyzeFlags struct {
	output  string
	failOn  string
	config  string
	cluster clusterFlags
}

func runAnalyze(ctx context.Context, env *Env, args []string) int {
	fs := flagSet("analyze", analyzeUsage, env)
	var rf renderFlags
	rf.register(fs)
	var af analyzeFlags
	fs.StringVarP(&af.output, "output", "o", "text", "report format: text, json, sarif, junit or gitlab")
	fs.StringVar(&af.failOn, "fail-on", "", "lowest severity that fails the run: error, warning or never (default: failOn of .routeguard.yaml, else error)")
	fs.StringVar(&af.config, "config", "", "path of the .routeguard.yaml to use (default: the app's, else the repository root's)")
	fs.StringVar(&af.cluster.crdDir, "crd-dir", "", "validate custom resources against the CRDs in this directory (the cluster's; they take precedence over the bundled ones)")
	fs.StringVar(&af.cluster.gatewayAPIChannel, "gateway-api-channel", "", "Gateway API channel of the cluster's CRDs: standard or experimental (default: not known; what only experimental accepts is a warning)")
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if af.failOn != "" {
		if _, err := config.Parse("--fail-on", []byte("failOn: "+af.failOn)); err != nil {
			return failf(env, "--fail-on must be error, warning or never, got %q", af.failOn)
		}
	}
	var buf bytes.Buffer
	w, err := report.New(af.output, &buf, report.Options{Color: env.IsTerminal && af.output == "text", Version: Version})
	if err != nil {
		return failf(env, "--output: %v", err)
	}
	paths := fs.Args()
	if len(paths) == 0 {
		paths = []string{"."}
	}
	for _, p := range paths {
		if p == "-" && len(paths) > 1 {
			return failf(env, "'-' (stdin) cannot be combined with other paths")
		}
	}
	failed, pluginFailed := false, false
	for _, p := range paths {
		run, err := analyzePath(ctx, env, &rf, &af, p)
		if err != nil {
			return failf(env, "%v", err)
		}
		for _, f := range run.findings {
			if err := w.Write(f); err != nil {
				return failf(env, "writing report: %v", err)
			}
		}
		failed = failed || run.failed
		pluginFailed = pluginFailed || run.pluginFailed
	}
	// The whole report is built before anything reaches stdout.
	if err := w.Flush(); err != nil {
		return failf(env, "writing report: %v", err)
	}
	if _, err := env.Stdout.Write(buf.Bytes()); err != nil {
		return failf(env, "writing report: %v", err)
	}
	if pluginFailed {
		// The report keeps every other analyzer's findings; the plugin's
		// error is on stderr (plugins.onError: fail).
		return ExitError
	}
	if failed {
		return ExitFindings
	}
	return ExitOK
}

type analyzeRun struct {
	findings []analysis.Finding
	failed   bool // a finding reached the failing severity
	// pluginFailed: a plugin failed and plugins.onError says fail.
	pluginFailed bool
}

// analyzePath renders (or reads) one input, loads its configuration and
// context paths, and runs every analyzer.
func analyzePath(ctx context.Context, env *Env, rf *renderFlags, af *analyzeFlags, path string) (*analyzeRun, error) {
	opts, err := rf.options(env, path)
	if err != nil {
		return nil, err
	}
	var set *manifest.Set
	var appDir, repoRoot string
	if path == "-" {
		if set, err = readStdin(env, opts.MaxFileBytes); err != nil {
			return nil, err
		}
		if env.Getwd != nil {
			appDir, _ = env.Getwd()
		}
		repoRoot = firstNonEmpty(rf.repoRoot, appDir)
	} else {
		res, err := render.Render(ctx, opts)
		if err != nil {
			return nil, err
		}
		set, repoRoot = res.Set, res.RepoRoot
		appDir = filepath.Join(res.RepoRoot, filepath.FromSlash(res.Path))
	}
	cfg, err := loadConfig(af.config, appDir, repoRoot)
	if err != nil {
		return nil, err
	}
	ctxSet, err := renderContext(ctx, cfg, repoRoot, opts)
	if err != nil {
		return nil, err
	}
	settings, err := settingsOf(cfg)
	if err != nil {
		return nil, err
	}
	defaultNS := opts.Helm.Namespace
	session, err := plugins.Load(plugins.Options{Config: cfg.Plugins, ConfigFile: cfg.File, RepoRoot: repoRoot,
		Set: set, Executable: env.Executable, Getenv: env.Getenv})
	if err != nil {
		return nil, err
	}
	cluster, err := clusterOf(env, rf.kubeVersion, af.cluster)
	if err != nil {
		return nil, err
	}
	settled := gctune.Settled() // the objects are decoded; the analysis mostly makes garbage
	res, err := analysis.Run(ctx, analysis.RunOptions{Set: set, ContextSet: ctxSet, Config: settings,
		Analyzers: append(registry.All(), session.Analyzers()...), DefaultNamespace: defaultNS, Cluster: cluster})
	settled()
	if err != nil {
		return nil, err
	}
	failOn := firstNonEmpty(af.failOn, cfg.FailOn, "error")
	out := &analyzeRun{findings: res.Findings, pluginFailed: session.Report(env.Stderr)}
	if failOn != "never" {
		min, _ := analysis.ParseSeverity(failOn)
		out.failed = res.Max() >= min && res.Max() > 0
	}
	return out, nil
}

func readStdin(env *Env, limit int64) (*manifest.Set, error) {
	data, err := io.ReadAll(io.LimitReader(env.Stdin, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading stdin: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("<stdin>: larger than %d MiB; raise --max-file-size if this is intended", limit>>20)
	}
	objs, err := manifest.Decode("<stdin>", data)
	if err != nil {
		return nil, err
	}
	set := manifest.NewSet()
	if err := set.AddAll(objs); err != nil {
		return nil, err
	}
	return set, nil
}

// loadConfig reads --config, else the app's or the repository root's
// .routeguard.yaml, else the defaults.
func loadConfig(explicit, appDir, repoRoot string) (*config.Config, error) {
	p := explicit
	if p == "" {
		found, ok := config.Find(appDir, repoRoot)
		if !ok {
			return &config.Config{}, nil
		}
		p = found
	}
	display := p
	if rel, err := filepath.Rel(repoRoot, p); err == nil && repoRoot != "" && filepath.IsLocal(rel) {
		display = filepath.ToSlash(rel)
	}
	return config.Load(p, display)
}

// settingsOf turns the configuration into analysis settings.
func settingsOf(cfg *config.Config) (analysis.Settings, error) {
	var s analysis.Settings
	for code, sev := range cfg.Severity {
		v, err := analysis.ParseSeverity(sev)
		if err != nil {
			return s, fmt.Errorf("%s: severity of %s: %w", cfg.File, code, err)
		}
		if s.Severity == nil {
			s.Severity = map[string]analysis.Severity{}
		}
		s.Severity[code] = v
	}
	for _, sup := range cfg.Suppress {
		s.Suppress = append(s.Suppress, analysis.Suppression{Code: sup.Code, Object: sup.Object, Reason: sup.Reason})
	}
	if err := s.Validate(); err != nil {
		return s, fmt.Errorf("%s: %w", cfg.File, err)
	}
	return s, nil
}

// renderContext renders the configuration's context paths into one set.
// Their objects only resolve references; an object rendered by two context
// paths is kept once.
func renderContext(ctx context.Context, cfg *config.Config, repoRoot string, app render.Options) (*manifest.Set, error) {
	set := manifest.NewSet()
	for _, cp := range cfg.ContextPaths {
		opts := render.Options{
			Path:         filepath.Join(repoRoot, filepath.FromSlash(cp.Path)),
			RepoRoot:     repoRoot,
			AllowNetwork: app.AllowNetwork,
			MaxFileBytes: app.MaxFileBytes,
			HelmCommand:  app.HelmCommand,
			Helm: render.HelmOptions{Namespace: cp.Namespace, Release: cp.Release, ValuesFiles: cp.Values,
				KubeVersion: app.Helm.KubeVersion, APIVersions: app.Helm.APIVersions, IncludeCRDs: true},
			Directory: render.DirectoryOptions{Recurse: cp.Recurse},
		}
		res, err := render.Render(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("%s: rendering context path %s: %w", cfg.File, cp.Path, err)
		}
		for _, o := range res.Set.Objects() {
			if _, dup := set.Get(o.Key()); dup {
				continue
			}
			if err := set.Add(o); err != nil {
				return nil, err
			}
		}
	}
	return set, nil
}
