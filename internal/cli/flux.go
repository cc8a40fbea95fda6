package cli

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/flux"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
	"github.com/routeguard/routeguard/internal/report"
	"github.com/routeguard/routeguard/internal/transform"
	"github.com/routeguard/routeguard/internal/version"
)

func newFluxCommand(env *Env) *cobra.Command {
	return group("flux", "Build Flux Kustomizations and HelmReleases as the controllers would, and analyze them",
		newFluxBuildCommand(env))
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
	analyze      bool
	analysis     analysisFlags
}

func newFluxBuildCommand(env *Env) *cobra.Command {
	var f fluxBuildFlags
	cmd := &cobra.Command{
		Use:   "build [PATH] [--all | --name NAME [--namespace NS]]",
		Short: "Build what kustomize-controller and helm-controller would apply, and analyze it",
		Long: `Builds the Flux Kustomizations and HelmReleases under PATH (a cluster directory,
or a file holding them) as the controllers would: Kustomize build of spec.path,
postBuild substitution with Flux's own code, HelmReleases with in-repository
charts and their post-renderers, routeguard's traffic transforms, then the
analysis. Prints the manifests (or, with --report, the analysis) on stdout.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := "."
			if len(args) == 1 {
				path = args[0]
			}
			return runFluxBuild(cmd, env, &f, path)
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&f.all, "all", false, "build every Kustomization and HelmRelease under PATH (a cluster directory)")
	fs.StringVar(&f.name, "name", "", "build the Kustomization or HelmRelease with this name under PATH")
	fs.StringVarP(&f.namespace, "namespace", "n", "", "with --name: its namespace (default: any)")
	fs.StringVar(&f.repoRoot, "repo-root", "", "the GitRepository root that spec.path is relative to (default: the git top level above PATH)")
	fs.BoolVar(&f.strict, "strict", true, "fail on postBuild variables that are not set and have no default (Flux 2.9's default; --strict=false to turn off)")
	fs.BoolVar(&f.allowNetwork, "allow-network", false, "allow remote Kustomize bases and fetching HelmRepository (https) charts")
	fs.StringVar(&f.kubeVersion, "kube-version", "", "Kubernetes version for Helm capabilities (default: $KUBE_VERSION)")
	fs.StringVarP(&f.output, "output", "o", "yaml", "manifest output format: "+strings.Join(manifestFormats, " or "))
	fs.StringVar(&f.report, "report", "", "print the analysis report on stdout in this format ("+strings.Join(report.Formats(), ", ")+") instead of the manifests")
	fs.BoolVar(&f.analyze, "analyze", true, "run the analysis (--analyze=false only builds)")
	f.analysis.register(cmd)
	cmd.Flags().Lookup("config").Usage = "path of the .routeguard.yaml with the analysis settings (default: PATH's directory's, else the repository root's)"
	return cmd
}

func runFluxBuild(cmd *cobra.Command, env *Env, f *fluxBuildFlags, path string) error {
	if !slices.Contains(manifestFormats, f.output) {
		return fail("--output must be %s, got %q", strings.Join(manifestFormats, " or "), f.output)
	}
	if f.report != "" && !f.analyze {
		return fail("--report needs the analysis; drop --analyze=false")
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fail("%s: no such file or directory; give a cluster directory or a file holding Flux Kustomizations/HelmReleases", path)
	}
	if fi.IsDir() && !f.all && f.name == "" {
		return fail("%s is a directory: pass --all to build everything under it, or --name NAME", path)
	}
	if f.all && f.name != "" {
		return fail("--all and --name exclude each other")
	}
	root := f.repoRoot
	if root == "" {
		if root, err = render.FindRepoRoot(path); err != nil {
			return fail("%v", err)
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
		return fail("%v", err)
	}
	objs := inv.All()
	if f.name != "" {
		objs = inv.Select(f.name, f.namespace)
	}
	if !fi.IsDir() {
		objs = inFile(inv, objs, path)
	}
	if f.name != "" && len(objs) == 0 {
		return fail("no Kustomization or HelmRelease named %q%s under %s", f.name, inNamespace(f.namespace), path)
	}
	if len(objs) == 0 {
		return fail("no Flux Kustomization or HelmRelease under %s", path)
	}
	opts := flux.Options{Strict: f.strict, AllowNetwork: f.allowNetwork, KubeVersion: cmp.Or(f.kubeVersion, env.Getenv("KUBE_VERSION"))}
	builds, err := inv.BuildAll(cmd.Context(), objs, opts)
	if err != nil {
		return fail("%v", err)
	}
	all := manifest.NewSet()
	for _, b := range builds {
		if b.Skipped != "" {
			fmt.Fprintf(env.Stderr, "routeguard: warning: %s: %s %s\n", b.Object.Source, b.Object, b.Skipped)
			continue
		}
		if err := applyFluxTransforms(inv, b); err != nil {
			return fail("%v", err)
		}
		if err := all.AddAll(b.Set.Objects()); err != nil {
			return fail("%v (built by %s)", err, b.Object)
		}
	}
	var stdout []byte
	code := ExitOK
	if f.analyze {
		appDir, err := filepath.Abs(scanDir)
		if err != nil {
			return fail("%v", err)
		}
		host, err := pluginHost(env, f.analysis.plugins)
		if err != nil {
			return fail("%v", err)
		}
		cluster, err := clusterOf(env, "", f.analysis.cluster)
		if err != nil {
			return fail("%v", err)
		}
		out, err := pipeline.Run(cmd.Context(), pipeline.Request{
			Cluster: cluster, Objects: all, AppDir: appDir, RepoRoot: inv.RepoRoot, ConfigFile: f.analysis.config,
			Overrides: pipeline.Overrides{FailOn: f.analysis.failOn},
			Analyze:   true,
			Context:   &render.Options{AllowNetwork: f.allowNetwork, MaxFileBytes: manifest.DefaultMaxFileBytes},
			Plugins:   host,
		})
		if err != nil {
			return fail("%v", err)
		}
		pipeline.WriteNotices(env.Stderr, out.Notices)
		format := cmp.Or(f.report, "text")
		var rbuf bytes.Buffer
		w, err := report.New(format, &rbuf, report.Options{Version: version.Get().Version})
		if err != nil {
			return fail("--report: %v", err)
		}
		if f.report != "" || len(out.Findings) > 0 {
			if err := report.WriteAll(w, out.Findings); err != nil {
				return fail("writing report: %v", err)
			}
		}
		if f.report != "" {
			stdout = rbuf.Bytes()
		} else {
			env.Stderr.Write(rbuf.Bytes())
		}
		switch {
		case out.PluginFailed:
			code = ExitError
		case out.Failed:
			code = ExitFindings
		}
	}
	if f.report == "" {
		if stdout, err = writeManifests(f.output, all.Objects()); err != nil {
			return fail("%v", err)
		}
	}
	if err := writeStdout(env, stdout); err != nil {
		return err
	}
	return exitWith(code)
}

// WeightsVariable is the postBuild variable that states traffic weights for
// one Flux Kustomization, in the one-line form ("reviews: blue 90, green
// 10"); it overrides transforms.weights of .routeguard.yaml per service.
const WeightsVariable = "routeguard_weights"

// applyFluxTransforms runs the traffic transforms of the .routeguard.yaml
// that applies to the build (the Kustomization's spec.path, else the
// repository root), merged with its spec.postBuild.substitute's
// routeguard_weights, as cmp generate and postrender merge theirs.
func applyFluxTransforms(inv *flux.Inventory, b *flux.Build) error {
	cfg, err := pipeline.LoadConfig("", inv.AppDir(b.Object), inv.RepoRoot)
	if err != nil {
		return err
	}
	var o pipeline.Overrides
	if w, ok := flux.SubstituteVariable(b.Object, WeightsVariable); ok {
		if o.Weights, err = config.ParseWeights(w); err != nil {
			return fmt.Errorf("%s: %s: spec.postBuild.substitute.%s: %w", b.Object.Source, b.Object, WeightsVariable, err)
		}
	}
	if err := transform.Apply(b.Set, pipeline.MergeTransforms(cfg.Transforms, o)); err != nil {
		return fmt.Errorf("%w (transforms of %s, for %s)", err, cmp.Or(cfg.File, "the routeguard_weights variable"), b.Object)
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
