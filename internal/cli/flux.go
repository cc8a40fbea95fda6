package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/registry"
	"github.com/routeguard/routeguard/internal/plugins"
	"github.com/routeguard/routeguard/internal/render"
	"github.com/routeguard/routeguard/internal/report"

	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/flux"
	"github.com/routeguard/routeguard/internal/gctune"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/transform"
)

func init() {
	register(command{name: "flux", summary: "build Flux Kustomizations and HelmReleases as the controllers would, and analyze them", run: runFlux})
}

func runFlux(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(env.Stdout, "Usage:\n  routeguard flux build [PATH] [--all | --name NAME [--namespace NS]] [flags]\n\nRun 'routeguard flux build --help' for the flags.\n")
		if len(args) == 0 {
			return ExitError
		}
		return ExitOK
	}
	if args[0] != "build" {
		return failf(env, "unknown flux command %q; the only one is 'flux build'", args[0])
	}
	return runFluxBuild(ctx, env, args[1:])
}

type fluxBuildFlags struct {
	all          bool
	name         string
	namespace    string
	repoRoot     string
	strict       bool
	allowNetwork bool
	kubeVersion  string
	output       string
	report       string
	failOn       string
	config       string
	analyze      bool
}

func runFluxBuild(ctx context.Context, env *Env, args []string) int {
	fs := flagSet("flux build", "routeguard flux build [PATH] [--all | --name NAME [--namespace NS]] [flags]", env)
	var f fluxBuildFlags
	fs.BoolVar(&f.all, "all", false, "build every Kustomization and HelmRelease under PATH (a cluster directory)")
	fs.StringVar(&f.name, "name", "", "build the Kustomization or HelmRelease with this name under PATH")
	fs.StringVarP(&f.namespace, "namespace", "n", "", "with --name: its namespace (default: any)")
	fs.StringVar(&f.repoRoot, "repo-root", "", "the GitRepository root that spec.path is relative to (default: the git top level above PATH)")
	fs.BoolVar(&f.strict, "strict", true, "fail on postBuild variables that are not set and have no default (Flux 2.9's default; --strict=false to turn off)")
	fs.BoolVar(&f.allowNetwork, "allow-network", false, "allow remote Kustomize bases and fetching HelmRepository (https) charts")
	fs.StringVar(&f.kubeVersion, "kube-version", "", "Kubernetes version for Helm capabilities (default: $KUBE_VERSION)")
	fs.StringVarP(&f.output, "output", "o", "yaml", "manifest output format: yaml or json")
	fs.StringVar(&f.report, "report", "", "print the analysis report on stdout in this format (text, json, sarif, junit, gitlab) instead of the manifests")
	fs.StringVar(&f.failOn, "fail-on", "", "lowest severity that fails the run: error, warning or never (default: failOn of .routeguard.yaml, else error)")
	fs.StringVar(&f.config, "config", "", "path of the .routeguard.yaml with the analysis settings (default: PATH's directory's, else the repository root's)")
	fs.BoolVar(&f.analyze, "analyze", true, "run the analysis (--analyze=false only builds)")
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 1 {
		return failf(env, "flux build takes one PATH, got %d", fs.NArg())
	}
	if f.output != "yaml" && f.output != "json" {
		return failf(env, "--output must be yaml or json, got %q", f.output)
	}
	if f.failOn != "" {
		if _, err := config.Parse("--fail-on", []byte("failOn: "+f.failOn)); err != nil {
			return failf(env, "--fail-on must be error, warning or never, got %q", f.failOn)
		}
	}
	if f.report != "" && !f.analyze {
		return failf(env, "--report needs the analysis; drop --analyze=false")
	}
	path := "."
	if fs.NArg() == 1 {
		path = fs.Arg(0)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return failf(env, "%s: no such file or directory; give a cluster directory or a file holding Flux Kustomizations/HelmReleases", path)
	}
	if fi.IsDir() && !f.all && f.name == "" {
		return failf(env, "%s is a directory: pass --all to build everything under it, or --name NAME", path)
	}
	if f.all && f.name != "" {
		return failf(env, "--all and --name exclude each other")
	}
	root := f.repoRoot
	if root == "" {
		if root, err = repoRootOf(path); err != nil {
			return failf(env, "%v", err)
		}
	}
	// A file: build the Flux objects it holds, with its directory's
	// ConfigMaps and Secrets for substituteFrom and valuesFrom.
	scanDir := path
	if !fi.IsDir() {
		scanDir = filepath.Dir(path)
	}
	inv, err := flux.Scan(root, scanDir)
	if err != nil {
		return failf(env, "%v", err)
	}
	objs := inv.All()
	if !fi.IsDir() {
		objs = inFile(inv, objs, path)
	}
	if f.name != "" {
		objs = inv.Select(f.name, f.namespace)
		if !fi.IsDir() {
			objs = inFile(inv, objs, path)
		}
		if len(objs) == 0 {
			return failf(env, "no Kustomization or HelmRelease named %q%s under %s", f.name, inNamespace(f.namespace), path)
		}
	}
	if len(objs) == 0 {
		return failf(env, "no Flux Kustomization or HelmRelease under %s", path)
	}
	opts := flux.Options{Strict: f.strict, AllowNetwork: f.allowNetwork, KubeVersion: firstNonEmpty(f.kubeVersion, env.Getenv("KUBE_VERSION"))}
	builds, err := inv.BuildAll(ctx, objs, opts)
	if err != nil {
		return failf(env, "%v", err)
	}
	all := manifest.NewSet()
	for _, b := range builds {
		if b.Skipped != "" {
			fmt.Fprintf(env.Stderr, "routeguard: warning: %s: %s %s\n", b.Object.Source, b.Object, b.Skipped)
			continue
		}
		if err := applyTransforms(inv, b); err != nil {
			return failf(env, "%v", err)
		}
		if err := all.AddAll(b.Set.Objects()); err != nil {
			return failf(env, "%v (built by %s)", err, b.Object)
		}
	}
	code := ExitOK
	var buf bytes.Buffer
	if f.analyze {
		run, err := analyzeFluxBuild(ctx, env, &f, inv, path, all)
		if err != nil {
			return failf(env, "%v", err)
		}
		reportTo, format := env.Stderr, "text"
		if f.report != "" {
			reportTo, format = io.Writer(&buf), f.report
		}
		var rbuf bytes.Buffer
		w, err := report.New(format, &rbuf, report.Options{Version: Version})
		if err != nil {
			return failf(env, "--report: %v", err)
		}
		if f.report != "" || len(run.findings) > 0 {
			if err := report.WriteAll(w, run.findings); err != nil {
				return failf(env, "writing report: %v", err)
			}
		}
		if _, err := reportTo.Write(rbuf.Bytes()); err != nil {
			return failf(env, "writing report: %v", err)
		}
		if run.pluginFailed {
			code = ExitError
		} else if run.failed {
			code = ExitFindings
		}
	}
	if f.report == "" {
		if f.output == "json" {
			err = manifest.WriteJSON(&buf, all.Objects())
		} else {
			err = manifest.WriteYAML(&buf, all.Objects())
		}
		if err != nil {
			return failf(env, "%v", err)
		}
	}
	if _, err := env.Stdout.Write(buf.Bytes()); err != nil {
		return failf(env, "writing output: %v", err)
	}
	return code
}

// analyzeFluxBuild runs every analyzer (built-in and plugins) on everything
// the build produced, with the settings of --config, else the
// .routeguard.yaml of PATH's directory, else the repository root's.
func analyzeFluxBuild(ctx context.Context, env *Env, f *fluxBuildFlags, inv *flux.Inventory, path string, set *manifest.Set) (*analyzeRun, error) {
	dir, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	cfg, err := loadConfig(f.config, dir, inv.RepoRoot)
	if err != nil {
		return nil, err
	}
	ctxSet, err := renderContext(ctx, cfg, inv.RepoRoot, render.Options{AllowNetwork: f.allowNetwork, MaxFileBytes: manifest.DefaultMaxFileBytes})
	if err != nil {
		return nil, err
	}
	settings, err := settingsOf(cfg)
	if err != nil {
		return nil, err
	}
	session, err := plugins.Load(plugins.Options{Config: cfg.Plugins, ConfigFile: cfg.File, RepoRoot: inv.RepoRoot,
		Set: set, Executable: env.Executable, Getenv: env.Getenv})
	if err != nil {
		return nil, err
	}
	settled := gctune.Settled() // the objects are decoded; the analysis mostly makes garbage
	res, err := analysis.Run(ctx, analysis.RunOptions{Set: set, ContextSet: ctxSet, Config: settings,
		Analyzers: append(registry.All(), session.Analyzers()...)})
	settled()
	if err != nil {
		return nil, err
	}
	failOn := firstNonEmpty(f.failOn, cfg.FailOn, "error")
	out := &analyzeRun{findings: res.Findings, pluginFailed: session.Report(env.Stderr)}
	if failOn != "never" {
		min, _ := analysis.ParseSeverity(failOn)
		out.failed = res.Max() >= min && res.Max() > 0
	}
	return out, nil
}

// WeightsVariable is the postBuild variable that states traffic weights for
// one Flux Kustomization, in the one-line form ("reviews: blue 90, green
// 10"); it overrides transforms.weights of .routeguard.yaml.
const WeightsVariable = "routeguard_weights"

// applyTransforms runs the traffic transforms of the .routeguard.yaml that
// applies to the build (the Kustomization's spec.path, else the repository
// root), as cmp generate and postrender do; spec.postBuild.substitute's
// routeguard_weights overrides its weights.
func applyTransforms(inv *flux.Inventory, b *flux.Build) error {
	tf := &config.Transforms{}
	where := ""
	if p, ok := config.Find(inv.AppDir(b.Object), inv.RepoRoot); ok {
		rel, _ := filepath.Rel(inv.RepoRoot, p)
		where = filepath.ToSlash(rel)
		cfg, err := config.Load(p, where)
		if err != nil {
			return err
		}
		if cfg.Transforms != nil {
			*tf = *cfg.Transforms
		}
	}
	spec, _ := b.Object.Body["spec"].(map[string]any)
	pb, _ := spec["postBuild"].(map[string]any)
	sub, _ := pb["substitute"].(map[string]any)
	if w, ok := sub[WeightsVariable].(string); ok {
		weights, err := config.ParseWeights(w)
		if err != nil {
			return fmt.Errorf("%s: %s: spec.postBuild.substitute.%s: %w", b.Object.Source, b.Object, WeightsVariable, err)
		}
		tf.Weights = weights
		where = b.Object.Source.String() + " " + WeightsVariable
	}
	if err := transform.Apply(b.Set, tf); err != nil {
		return fmt.Errorf("%w (transforms of %s, for %s)", err, where, b.Object)
	}
	return nil
}

// inFile keeps the objects that come from file.
func inFile(inv *flux.Inventory, objs []*manifest.Object, file string) []*manifest.Object {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil
	}
	rel, err := filepath.Rel(inv.RepoRoot, abs)
	if err != nil {
		return nil
	}
	var out []*manifest.Object
	for _, o := range objs {
		if o.Source.File == filepath.ToSlash(rel) {
			out = append(out, o)
		}
	}
	return out
}

func inNamespace(ns string) string {
	if ns == "" {
		return ""
	}
	return " in namespace " + ns
}

// repoRootOf finds the git top level above path, as render does.
func repoRootOf(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		abs = filepath.Dir(abs)
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return abs, nil
		}
	}
}
