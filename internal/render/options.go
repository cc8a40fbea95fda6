package render

import (
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/manifest"
)

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
	// SkipMissingCharts renders a Kustomize app whose helmCharts name
	// charts that are not in the repository without those charts (they are
	// listed in Result.MissingCharts), instead of failing with
	// NotFetchedError. For analysis only: what is rendered is not the whole
	// app, so it must never be output where it is applied (cmp generate).
	SkipMissingCharts bool
	// SkipRemote renders a Kustomize app without what its kustomizations
	// name remotely (a base, resource or component, a generator's file, a
	// patch) when the network is not allowed, listing them in
	// Result.Remote, instead of failing with NotFetchedError. For analysis
	// only, as SkipMissingCharts.
	SkipRemote bool

	Helm      HelmOptions
	Directory DirectoryOptions

	Kustomize KustomizeOptions

	// RepeatedObject: see its type; nil makes a repeated object an error.
	RepeatedObject RepeatedObject

	// ExtraRoots are further directory trees reads may reach besides
	// RepoRoot (the repository holding an Application's $values files when
	// its chart comes from a chart repository).
	ExtraRoots []string

	// Trace, when set, records what the render observes of the repository
	// (confine.Trace): files read, paths looked at, directories listed.
	Trace *confine.Trace

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

	// ValuesYAML is an inline values document (Argo CD's helm.values or
	// valuesObject), merged after ValuesFiles, before Set.
	ValuesYAML []byte
	// SetFile are --set-file key=path: the file's content is the value;
	// the path is relative to the chart directory, or absolute inside the
	// repository.
	SetFile []string
	// SkipSchemaValidation skips values.schema.json (--skip-schema-validation).
	SkipSchemaValidation bool
	// BuildDependencies does what Argo CD's `helm dependency build` does for
	// dependencies of Chart.yaml missing under charts/: file:// charts come
	// from the repository, others from Dependencies. Without it a missing
	// dependency is an error.
	BuildDependencies bool
	// Dependencies fetches dependencies from chart repositories; nil means
	// they cannot be fetched (a *MissingDependenciesError).
	Dependencies DependencyFetcher
	// SkipMissingDependencies renders a chart whose dependencies cannot be
	// had (not vendored, not fetchable) with its own templates only,
	// listing them in Result.MissingDependencies, instead of failing with
	// a *MissingDependenciesError (still returned when the chart's own
	// templates need them or render nothing). For analysis only: what is
	// rendered is not the whole release, so it must never be output where
	// it is applied (cmp generate).
	SkipMissingDependencies bool
	// UnpredictableRandom makes the chart's random functions (randAlphaNum,
	// uuidv4, ...) Helm's own, drawing from the operating system's random
	// source: for output that is applied (cmp generate, render), where a
	// generated password must not be a value anyone can compute. Without
	// it they draw from a stream seeded the same for every render
	// (templatelimit), so that a review or an analysis gives the same
	// bytes every time and at both revisions.
	UnpredictableRandom bool
}

// KustomizeOptions adjust a Kustomize build.
type KustomizeOptions struct {
	// Edit, when set, edits the app's kustomization before the build, as
	// Argo CD does with `kustomize edit` in its copy of the repository. It
	// gets a file system whose relative paths start at the app directory:
	// reads are confined to the repository, writes stay in memory, and the
	// build reads what was written.
	Edit func(fsys filesys.FileSystem) error
}

// DirectoryOptions mirror Argo CD's spec.source.directory.
type DirectoryOptions struct {
	Recurse bool
	Include string // glob, e.g. "{*.yaml,*.yml}"
	Exclude string // glob
	// Jsonnet configures the evaluation of .jsonnet files (always
	// evaluated, as Argo CD does; these are its extVars, tlas and libs).
	Jsonnet JsonnetOptions
	// SkipNonManifests applies Argo CD's file rules: files holding the
	// "+argocd:skip-file-rendering" marker are skipped, and so are YAML or
	// JSON files that do not decode into objects and do not look like
	// manifests (no apiVersion, kind and metadata keys). Without it, a
	// file none of whose documents has apiVersion or kind is skipped with
	// a warning (manifest.NotManifest), and any other file that does not
	// decode into objects is an error.
	SkipNonManifests bool
	// DuplicateKey, when set, makes a key defined twice in one mapping of
	// a manifest file keep its last value, as Argo CD's decoder
	// (sigs.k8s.io/yaml) does, and is told each one (it may be called
	// concurrently); nil: a duplicate key is an error.
	DuplicateKey func(manifest.DuplicateKey)
}

// RepeatedObject, when set, is told each object that an app renders twice
// (same group, kind, namespace and name) and the later one replaces the
// earlier, as Argo CD does (its RepeatedResourceWarning); nil: a repeated
// object is an error. Kustomize refuses repeated objects itself, whatever
// this says.
type RepeatedObject func(*manifest.DuplicateError)

// Result is what rendering produced.
type Result struct {
	Tool Tool
	// Path is the application directory relative to the repository root.
	Path string
	// RepoRoot is the absolute repository root used for confinement.
	RepoRoot string
	Set      *manifest.Set
	// MissingCharts are the helmCharts entries left out of Set
	// (Options.SkipMissingCharts), in the order Kustomize read them.
	MissingCharts []MissingChart
	// Remote are the remote references left out of Set
	// (Options.SkipRemote), in the order Kustomize read them.
	Remote []RemoteRef
	// MissingDependencies are the chart dependencies left out of Set
	// (HelmOptions.SkipMissingDependencies); nil when none was.
	MissingDependencies *MissingDependenciesError
	// Warnings say what the render left out that a user may expect it to
	// read (a symbolic link to a directory in a recursive directory app).
	Warnings []string
}

func (o Options) maxFileBytes() int64 {
	if o.MaxFileBytes > 0 {
		return o.MaxFileBytes
	}
	return manifest.DefaultMaxFileBytes
}

// addAll adds objs to set; a repeated object is an error, or, with
// repeated set, replaces the earlier one and is told.
func addAll(set *manifest.Set, objs []*manifest.Object, repeated RepeatedObject) error {
	if repeated == nil {
		return set.AddAll(objs)
	}
	for _, o := range objs {
		if dup := set.AddLastWins(o); dup != nil {
			repeated(dup)
		}
	}
	return nil
}
