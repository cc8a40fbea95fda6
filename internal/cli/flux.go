package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/flux"
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
}

func runFluxBuild(ctx context.Context, env *Env, args []string) int {
	fs := flagSet("flux build", "routeguard flux build [PATH] [--all | --name NAME [--namespace NS]] [flags]", env)
	var f fluxBuildFlags
	fs.BoolVar(&f.all, "all", false, "build every Kustomization and HelmRelease under PATH (a cluster directory)")
	fs.StringVar(&f.name, "name", "", "build the Kustomization or HelmRelease with this name under PATH")
	fs.StringVarP(&f.namespace, "namespace", "n", "", "with --name: its namespace (default: any)")
	fs.StringVar(&f.repoRoot, "repo-root", "", "the GitRepository root that spec.path is relative to (default: the git top level above PATH)")
	fs.BoolVar(&f.strict, "strict", true, "fail on postBuild variables that are not set and have no default (Flux 2.9's default; --strict=false to turn off)")
	fs.BoolVar(&f.allowNetwork, "allow-network", false, "allow remote Kustomize bases and remote Helm charts")
	fs.StringVar(&f.kubeVersion, "kube-version", "", "Kubernetes version for Helm capabilities (default: $KUBE_VERSION)")
	fs.StringVarP(&f.output, "output", "o", "yaml", "manifest output format: yaml or json")
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 1 {
		return failf(env, "flux build takes one PATH, got %d", fs.NArg())
	}
	if f.output != "yaml" && f.output != "json" {
		return failf(env, "--output must be yaml or json, got %q", f.output)
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
	inv, err := flux.Scan(root, path)
	if err != nil {
		return failf(env, "%v", err)
	}
	objs := inv.All()
	if f.name != "" {
		objs = inv.Select(f.name, f.namespace)
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
			fmt.Fprintf(env.Stderr, "routeguard: warning: %s: %s %s/%s %s\n", b.Object.Source, b.Object.Kind, b.Object.Namespace, b.Object.Name, b.Skipped)
			continue
		}
		if err := applyTransforms(inv, b); err != nil {
			return failf(env, "%v", err)
		}
		if err := all.AddAll(b.Set.Objects()); err != nil {
			return failf(env, "%v (built by %s %s/%s)", err, b.Object.Kind, b.Object.Namespace, b.Object.Name)
		}
	}
	var buf bytes.Buffer
	if f.output == "json" {
		err = manifest.WriteJSON(&buf, all.Objects())
	} else {
		err = manifest.WriteYAML(&buf, all.Objects())
	}
	if err != nil {
		return failf(env, "%v", err)
	}
	if _, err := env.Stdout.Write(buf.Bytes()); err != nil {
		return failf(env, "writing output: %v", err)
	}
	return ExitOK
}

// applyTransforms runs the traffic transforms of the .routeguard.yaml that
// applies to the build (the Kustomization's spec.path, else the repository
// root), as cmp generate and postrender do.
func applyTransforms(inv *flux.Inventory, b *flux.Build) error {
	appDir := inv.AppDir(b.Object)
	p, ok := config.Find(appDir, inv.RepoRoot)
	if !ok {
		return nil
	}
	rel, _ := filepath.Rel(inv.RepoRoot, p)
	cfg, err := config.Load(p, filepath.ToSlash(rel))
	if err != nil {
		return err
	}
	if err := transform.Apply(b.Set, cfg.Transforms); err != nil {
		return fmt.Errorf("%w (transforms of %s, for %s %s/%s)", err, filepath.ToSlash(rel), b.Object.Kind, b.Object.Namespace, b.Object.Name)
	}
	return nil
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
