package cli

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/render"
)

// renderFlags are the flags every command that renders an app shares
// (render, analyze, cmp generate).
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
	fs.BoolVar(&f.allowNetwork, "allow-network", false, "allow remote Kustomize bases and remote Helm charts")
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
			Release:     firstNonEmpty(f.release, env.Getenv("ARGOCD_APP_NAME")),
			Namespace:   firstNonEmpty(f.namespace, env.Getenv("ARGOCD_APP_NAMESPACE")),
			ValuesFiles: f.values,
			Set:         f.set,
			SetString:   f.setString,
			KubeVersion: firstNonEmpty(f.kubeVersion, env.Getenv("KUBE_VERSION")),
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
	if env.Executable != nil {
		if exe, err := env.Executable(); err == nil {
			o.HelmCommand = exe
		}
	}
	return o, nil
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func runRender(ctx context.Context, env *Env, args []string) int {
	fs := flagSet("render", "routeguard render [PATH] [flags]", env)
	var rf renderFlags
	rf.register(fs)
	output := fs.StringP("output", "o", "yaml", "output format: yaml or json")
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 1 {
		return failf(env, "render takes one PATH, got %d", fs.NArg())
	}
	if *output != "yaml" && *output != "json" {
		return failf(env, "--output must be yaml or json, got %q", *output)
	}
	path := "."
	if fs.NArg() == 1 {
		path = fs.Arg(0)
	}
	opts, err := rf.options(env, path)
	if err != nil {
		return failf(env, "%v", err)
	}
	res, err := render.Render(ctx, opts)
	if err != nil {
		return failf(env, "%v", err)
	}
	// Encode fully before writing: a failure must leave stdout empty.
	var buf bytes.Buffer
	if *output == "json" {
		err = manifest.WriteJSON(&buf, res.Set.Objects())
	} else {
		err = manifest.WriteYAML(&buf, res.Set.Objects())
	}
	if err != nil {
		return failf(env, "%v", err)
	}
	if _, err := env.Stdout.Write(buf.Bytes()); err != nil {
		return failf(env, "writing output: %v", err)
	}
	return ExitOK
}
