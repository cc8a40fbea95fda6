package action

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/render"
)

// RenderOptions are the options of every action that renders an app
// directory (render, analyze, map, diff).
type RenderOptions struct {
	// RepoRoot confines file reads (default: the git top level above the
	// app).
	RepoRoot     string
	AllowNetwork bool
	// MaxFileMiB is the largest manifest file to read, in MiB.
	MaxFileMiB int64
	// Release and Namespace of Helm apps (default: $ARGOCD_APP_NAME, else
	// the directory name; $ARGOCD_APP_NAMESPACE, else "default").
	Release, Namespace string
	Values             []string // Helm values files, relative to the chart
	Set, SetString     []string // Helm key=value
	// KubeVersion and APIVersions are Helm's capabilities (default:
	// $KUBE_VERSION, $KUBE_API_VERSIONS).
	KubeVersion string
	APIVersions []string
	// Recurse, Include and Exclude select the files of directory apps.
	Recurse          bool
	Include, Exclude string
}

// options turns the options into render options for path, filling
// defaults from the Argo CD build environment.
func (o RenderOptions) options(env Env, path string) (render.Options, error) {
	if o.MaxFileMiB <= 0 {
		return render.Options{}, fmt.Errorf("--max-file-size must be positive, got %d", o.MaxFileMiB)
	}
	r := render.Options{
		Path:         path,
		RepoRoot:     o.RepoRoot,
		AllowNetwork: o.AllowNetwork,
		MaxFileBytes: o.MaxFileMiB << 20,
		Helm: render.HelmOptions{
			Release:     cmp.Or(o.Release, env.Getenv("ARGOCD_APP_NAME")),
			Namespace:   cmp.Or(o.Namespace, env.Getenv("ARGOCD_APP_NAMESPACE")),
			ValuesFiles: o.Values,
			Set:         o.Set,
			SetString:   o.SetString,
			KubeVersion: cmp.Or(o.KubeVersion, env.Getenv("KUBE_VERSION")),
			APIVersions: o.APIVersions,
			IncludeCRDs: true,
		},
		Directory: render.DirectoryOptions{Recurse: o.Recurse, Include: o.Include, Exclude: o.Exclude},
	}
	if len(r.Helm.APIVersions) == 0 {
		if v := env.Getenv("KUBE_API_VERSIONS"); v != "" {
			r.Helm.APIVersions = strings.Split(v, ",")
		}
	}
	return r, nil
}
