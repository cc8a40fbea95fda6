package render

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
)

// Kustomize's helmCharts generator runs an external helm binary. routeguard
// points it at itself, with these variables set for the child process, and
// answers "version" and "template" through the Helm SDK (HelmShim).
const (
	HelmShimEnv        = "ROUTEGUARD_HELM_SHIM"
	helmShimRootEnv    = "ROUTEGUARD_HELM_SHIM_ROOT"
	helmShimNetworkEnv = "ROUTEGUARD_HELM_SHIM_NETWORK"
)

// setHelmShimEnv sets the shim variables for the duration of one Kustomize
// build. Kustomize passes its own environment to the helm child process, so
// this is the only channel to it; renders are sequential within a process.
func setHelmShimEnv(repoRoot string, allowNetwork bool) (restore func()) {
	saved := map[string]*string{}
	for _, k := range []string{HelmShimEnv, helmShimRootEnv, helmShimNetworkEnv} {
		if v, ok := os.LookupEnv(k); ok {
			saved[k] = &v
		} else {
			saved[k] = nil
		}
	}
	os.Setenv(HelmShimEnv, "1")
	os.Setenv(helmShimRootEnv, repoRoot)
	if allowNetwork {
		os.Setenv(helmShimNetworkEnv, "1")
	} else {
		os.Unsetenv(helmShimNetworkEnv)
	}
	return func() {
		for k, v := range saved {
			if v == nil {
				os.Unsetenv(k)
			} else {
				os.Setenv(k, *v)
			}
		}
	}
}

// HelmShim answers the helm command lines Kustomize's helmCharts generator
// runs: "version --short", "template NAME CHART [flags]" and "pull" (refused
// without the network). It returns the exit code.
func HelmShim(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "routeguard helm shim: no command")
		return 2
	}
	switch args[0] {
	case "version":
		// Kustomize requires a Helm 3 or 4 version string.
		fmt.Fprintln(stdout, "v4.3.1+routeguard")
		return 0
	case "pull":
		fmt.Fprintf(stderr, "remote Helm chart %s is not in the repository; routeguard renders offline: vendor the chart under the kustomization's chart home (charts/), or run with --allow-network\n",
			strings.Join(args[1:], " "))
		return 1
	case "template":
		if err := helmShimTemplate(ctx, args[1:], getenv, stdout); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stderr, "routeguard helm shim: unsupported helm command %q\n", args[0])
	return 2
}

func helmShimTemplate(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := pflag.NewFlagSet("template", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var h HelmOptions
	var debug, devel, generateName bool
	var nameTemplate string
	fs.StringVar(&h.Namespace, "namespace", "", "")
	fs.StringArrayVarP(&h.ValuesFiles, "values", "f", nil, "")
	fs.StringArrayVar(&h.APIVersions, "api-versions", nil, "")
	fs.StringVar(&h.KubeVersion, "kube-version", "", "")
	fs.BoolVar(&h.IncludeCRDs, "include-crds", false, "")
	fs.BoolVar(&h.SkipTests, "skip-tests", false, "")
	fs.BoolVar(&h.DisableHooks, "no-hooks", false, "")
	fs.BoolVar(&debug, "debug", false, "")
	fs.BoolVar(&devel, "devel", false, "")
	fs.BoolVar(&generateName, "generate-name", false, "")
	fs.StringVar(&nameTemplate, "name-template", "", "")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("helm template: %w", err)
	}
	pos := fs.Args()
	var chartDir string
	switch len(pos) {
	case 1:
		h.Release, chartDir = "release-name", pos[0]
	case 2:
		h.Release, chartDir = pos[0], pos[1]
	default:
		return fmt.Errorf("helm template: want NAME CHART, got %q", pos)
	}
	repoRoot := getenv(helmShimRootEnv)
	if repoRoot == "" {
		return fmt.Errorf("helm template: %s is not set (this mode is internal to routeguard's Kustomize rendering)", helmShimRootEnv)
	}
	// Kustomize writes merged values into a temporary directory next to its
	// helm config home; those files may be read too.
	var extra []string
	if home := getenv("HELM_CONFIG_HOME"); home != "" {
		// Only a directory below the system temporary directory qualifies.
		tmp := filepath.Clean(os.TempDir())
		if dir := filepath.Dir(filepath.Clean(home)); within(dir, tmp) && dir != tmp {
			extra = append(extra, dir)
		}
	}
	r, err := newRoot(repoRoot, extra...)
	if err != nil {
		return err
	}
	docs, err := HelmTemplate(ctx, r, chartDir, h)
	if err != nil {
		return err
	}
	for _, d := range docs {
		content := d.Content
		if d.Template != "" && !strings.HasPrefix(content, "# Source:") {
			content = "# Source: " + d.Template + "\n" + content
		}
		fmt.Fprintf(stdout, "---\n%s\n", strings.TrimRight(content, "\n"))
	}
	return nil
}
