package render

import "github.com/routeguard/routeguard/internal/manifest"

// Tool names the way an app is rendered.
type Tool string

// The tools routeguard detects, named as Argo CD names its built-in tools.
const (
	ToolDirectory Tool = "directory"
	ToolKustomize Tool = "kustomize"
	ToolHelm      Tool = "helm"
)

// Options say what to render and how.
type Options struct {
	// Path is the application directory.
	Path string
	// RepoRoot confines every file read; empty means the git top level
	// above Path, or Path itself outside a git checkout.
	RepoRoot string
	// AllowNetwork permits remote Kustomize bases and remote Helm charts.
	AllowNetwork bool
	// MaxFileBytes caps the size of any one manifest file (default 64 MiB).
	MaxFileBytes int64

	Helm      HelmOptions
	Directory DirectoryOptions

	// Self is the routeguard executable that answers Kustomize's helm calls
	// for helmCharts (through the Helm SDK, so no helm binary is needed);
	// empty means the running executable. See ServeHelmShim.
	Self string
}

// HelmOptions mirror `helm template` flags.
type HelmOptions struct {
	Release      string   // release name (default: the directory name)
	Namespace    string   // release namespace (default "default")
	ValuesFiles  []string // -f, relative to the app directory or absolute inside the repository
	Set          []string // --set key=value
	SetString    []string // --set-string key=value
	KubeVersion  string   // Capabilities.KubeVersion, e.g. "1.31.0"
	APIVersions  []string // Capabilities.APIVersions additions
	IncludeCRDs  bool     // render the chart's crds/ directory too (Argo CD does)
	SkipTests    bool     // leave out test hooks
	DisableHooks bool     // leave out all hooks (--no-hooks)
}

// DirectoryOptions mirror Argo CD's spec.source.directory.
type DirectoryOptions struct {
	Recurse bool
	Include string // glob, e.g. "{*.yaml,*.yml}"
	Exclude string // glob
}

// Result is what rendering produced.
type Result struct {
	Tool Tool
	// Path is the application directory relative to the repository root.
	Path string
	// RepoRoot is the absolute repository root used for confinement.
	RepoRoot string
	Set      *manifest.Set
}

func (o Options) maxFileBytes() int64 {
	if o.MaxFileBytes > 0 {
		return o.MaxFileBytes
	}
	return manifest.DefaultMaxFileBytes
}
