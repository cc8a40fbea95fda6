package cli

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
)

// renderFlags are the flags every command that renders an app shares
// (render, analyze).
type renderFlags struct {
	repoRoot     string
	allowNetwork bool
	maxFileMiB   int64
	release      string
	namespace    string
	values       []string
	set          []string
	setString    []string
	kubeVersion  string
	apiVersions  []string
	recurse      bool
	include      string
	exclude      string
}

func (f *renderFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.repoRoot, "repo-root", "", "confine file reads to this directory (default: the git top level above PATH)")
	fs.BoolVar(&f.allowNetwork, "allow-network", false, "allow remote Kustomize bases and Helm chart dependencies from repositories (the charts of Kustomize helmCharts are never downloaded: vendor them)")
	fs.Int64Var(&f.maxFileMiB, "max-file-size", manifest.DefaultMaxFileBytes>>20, "largest manifest file to read, in MiB")
	fs.StringVar(&f.release, "release", "", "Helm release name (default: $ARGOCD_APP_NAME, else the directory name)")
	fs.StringVarP(&f.namespace, "namespace", "n", "", "Helm release namespace (default: $ARGOCD_APP_NAMESPACE, else \"default\")")
	fs.StringArrayVarP(&f.values, "values", "f", nil, "Helm values file, relative to the chart (repeatable)")
	fs.StringArrayVar(&f.set, "set", nil, "Helm value key=value (repeatable)")
	fs.StringArrayVar(&f.setString, "set-string", nil, "Helm string value key=value (repeatable)")
	fs.StringVar(&f.kubeVersion, "kube-version", "", "Kubernetes version for Helm capabilities (default: $KUBE_VERSION)")
	fs.StringSliceVar(&f.apiVersions, "api-versions", nil, "API versions for Helm capabilities, comma-separated or repeated (default: $KUBE_API_VERSIONS)")
	fs.BoolVar(&f.recurse, "recurse", false, "directory apps: read subdirectories too")
	fs.StringVar(&f.include, "include", "", "directory apps: only files matching this glob (relative to the app)")
	fs.StringVar(&f.exclude, "exclude", "", "directory apps: skip files matching this glob")
}

// options turns the flags into render options, filling defaults from the
// Argo CD build environment.
func (f *renderFlags) options(env *Env, path string) (render.Options, error) {
	if f.maxFileMiB <= 0 {
		return render.Options{}, fmt.Errorf("--max-file-size must be positive, got %d", f.maxFileMiB)
	}
	o := render.Options{
		Path:         path,
		RepoRoot:     f.repoRoot,
		AllowNetwork: f.allowNetwork,
		MaxFileBytes: f.maxFileMiB << 20,
		Helm: render.HelmOptions{
			Release:     cmp.Or(f.release, env.Getenv("ARGOCD_APP_NAME")),
			Namespace:   cmp.Or(f.namespace, env.Getenv("ARGOCD_APP_NAMESPACE")),
			ValuesFiles: f.values,
			Set:         f.set,
			SetString:   f.setString,
			KubeVersion: cmp.Or(f.kubeVersion, env.Getenv("KUBE_VERSION")),
			APIVersions: f.apiVersions,
			IncludeCRDs: true,
		},
		Directory: render.DirectoryOptions{Recurse: f.recurse, Include: f.include, Exclude: f.exclude},
	}
	if len(o.Helm.APIVersions) == 0 {
		if v := env.Getenv("KUBE_API_VERSIONS"); v != "" {
			o.Helm.APIVersions = strings.Split(v, ",")
		}
	}
	return o, nil
}

// manifestFormats are the output formats of commands that print manifests.
var manifestFormats = []string{"yaml", "json"}

// writeManifests encodes objects in format ("yaml" or "json") into a buffer:
// callers write it only once it is complete.
func writeManifests(format string, objs []*manifest.Object) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	switch format {
	case "json":
		err = manifest.WriteJSON(&buf, objs)
	case "yaml":
		err = manifest.WriteYAML(&buf, objs)
	default:
		err = fmt.Errorf("--output must be %s, got %q", strings.Join(manifestFormats, " or "), format)
	}
	return buf.Bytes(), err
}

func newRenderCommand(env *Env) *cobra.Command {
	var rf renderFlags
	var output string
	cmd := &cobra.Command{
		Use:   "render [PATH]",
		Short: "Render an app directory into the manifests the reconciler would apply",
		Long: `Renders the app in PATH (default .) as Argo CD would: Kustomize when the
directory holds a kustomization, Helm when it holds Chart.yaml, else a directory
of YAML/JSON manifests. Prints the objects on stdout.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := "."
			if len(args) == 1 {
				path = args[0]
			}
			if !slices.Contains(manifestFormats, output) {
				return fail("--output must be %s, got %q", strings.Join(manifestFormats, " or "), output)
			}
			opts, err := rf.options(env, path)
			if err != nil {
				return fail("%v", err)
			}
			res, err := render.Render(cmd.Context(), opts)
			if err != nil {
				return fail("%v", err)
			}
			for _, w := range res.Warnings {
				pipeline.WriteNotices(env.Stderr, []pipeline.Notice{{Level: pipeline.LevelWarning, Text: w}})
			}
			out, err := writeManifests(output, res.Set.Objects())
			if err != nil {
				return fail("%v", err)
			}
			return writeStdout(env, out)
		},
	}
	rf.register(cmd.Flags())
	cmd.Flags().StringVarP(&output, "output", "o", "yaml", "output format: "+strings.Join(manifestFormats, " or "))
	return cmd
}

// writeStdout writes a command's complete output.
func writeStdout(env *Env, out []byte) error {
	if _, err := env.Stdout.Write(out); err != nil {
		return fail("writing output: %v", err)
	}
	return nil
}
