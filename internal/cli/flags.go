package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/routeguard/routeguard/internal/action"
	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
)

// registerRender binds the flags of every command that renders an app
// (render, analyze, map, diff).
func registerRender(fs *pflag.FlagSet, o *action.RenderOptions) {
	fs.StringVar(&o.RepoRoot, "repo-root", "", "confine file reads to this directory (default: the git top level above PATH)")
	fs.BoolVar(&o.AllowNetwork, "allow-network", false, "allow remote Kustomize bases and Helm chart dependencies from repositories (the charts of Kustomize helmCharts are never downloaded: vendor them)")
	fs.Int64Var(&o.MaxFileMiB, "max-file-size", manifest.DefaultMaxFileBytes>>20, "largest manifest file to read, in MiB")
	fs.StringVar(&o.Release, "release", "", "Helm release name (default: $ARGOCD_APP_NAME, else the directory name)")
	fs.StringVarP(&o.Namespace, "namespace", "n", "", "Helm release namespace (default: $ARGOCD_APP_NAMESPACE, else \"default\")")
	fs.StringArrayVarP(&o.Values, "values", "f", nil, "Helm values file, relative to the chart (repeatable)")
	fs.StringArrayVar(&o.Set, "set", nil, "Helm value key=value (repeatable)")
	fs.StringArrayVar(&o.SetString, "set-string", nil, "Helm string value key=value (repeatable)")
	fs.StringVar(&o.KubeVersion, "kube-version", "", "Kubernetes version for Helm capabilities (default: $KUBE_VERSION)")
	fs.StringSliceVar(&o.APIVersions, "api-versions", nil, "API versions for Helm capabilities, comma-separated or repeated (default: $KUBE_API_VERSIONS)")
	fs.BoolVar(&o.Recurse, "recurse", false, "directory apps: read subdirectories too")
	fs.StringVar(&o.Include, "include", "", "directory apps: only files matching this glob (relative to the app)")
	fs.StringVar(&o.Exclude, "exclude", "", "directory apps: skip files matching this glob")
}

// registerAnalysis binds the flags of every command that runs the analysis.
// registerCache binds --cache-dir and --no-cache (the validation result
// cache); def says where results go without --cache-dir.
func registerCache(fs *pflag.FlagSet, o *action.CacheOptions, def string) {
	fs.StringVar(&o.Dir, "cache-dir", "", "keep validation results in this directory and reuse those of unchanged objects (default: "+def+")")
	fs.BoolVar(&o.Off, "no-cache", false, "neither read nor keep validation results (--cache-dir)")
}

func registerAnalysis(cmd *cobra.Command, o *action.AnalysisOptions) {
	cmd.Flags().Var(&failOnFlag{&o.FailOn}, "fail-on", "lowest severity that fails the run: "+strings.Join(analysis.FailOnNames, ", ")+" (default: failOn of .routeguard.yaml, else error)")
	cmd.Flags().StringVar(&o.ConfigFile, "config", "", "path of the .routeguard.yaml to use (default: the app's, else the repository root's)")
	cmd.Flags().StringVar(&o.Cluster.CRDDir, "crd-dir", "", "validate custom resources against the CRDs in this directory (the cluster's; they take precedence over the bundled ones)")
	cmd.Flags().StringVar(&o.Cluster.GatewayAPIChannel, "gateway-api-channel", "", "Gateway API channel of the cluster's CRDs: standard or experimental (default: not known; what only experimental accepts is a warning)")
	cmd.Flags().StringVar(&o.Plugins, "plugins", "", "the operator's plugin catalog: which plugin binaries may run, pinned by sha256 (default: $"+action.PluginsEnv+"; see docs/plugins.md)")
}

// failOnFlag parses --fail-on once, into its typed value.
type failOnFlag struct{ v *analysis.FailOn }

func (f *failOnFlag) String() string { return f.v.String() }
func (f *failOnFlag) Type() string   { return "severity" }
func (f *failOnFlag) Set(s string) error {
	v, err := analysis.ParseFailOn(s)
	if err != nil {
		return err
	}
	*f.v = v
	return nil
}

// pathArg is the command's one optional PATH argument (default ".").
func pathArg(args []string) string {
	if len(args) == 1 {
		return args[0]
	}
	return "."
}
