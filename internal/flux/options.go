package flux

import (
	"fmt"
	"strings"
	"time"

	"github.com/routeguard/routeguard/internal/charts"
)

// Flux API groups.
const (
	KustomizeGroup        = "kustomize.toolkit.fluxcd.io"
	HelmGroup             = "helm.toolkit.fluxcd.io"
	SourceGroup           = "source.toolkit.fluxcd.io"
	SourceExtensionsGroup = "source.extensions.fluxcd.io"
)

// Options control BuildTree.
type Options struct {
	// RepoRoot is this checkout: the content of the GitRepository the
	// cluster's sync uses. Every file read stays inside it (or inside a
	// directory Sources maps).
	RepoRoot string
	// Path is where the build starts: a cluster directory (built as its
	// sync Kustomization builds it), or a file whose Kustomizations and
	// HelmReleases are the roots (its directory's ConfigMaps, Secrets and
	// sources are taken as applied).
	Path string
	// Strict says whether unset postBuild variables are errors: StrictOn
	// (Flux 2.9's default), StrictOff (before 2.9: an empty string), or
	// StrictAuto, from the Flux version the tree installs
	// (DetectFluxVersion), strict when it names none.
	Strict Strictness
	// AllowNetwork permits remote Kustomize bases and fetching charts.
	AllowNetwork bool
	// FetchCharts permits fetching charts only: from the HelmRepositories,
	// OCIRepositories and chart dependencies the tree declares, into
	// Charts; remote Kustomize bases stay offline (--fetch-charts).
	FetchCharts bool
	// Charts holds charts of HelmRepositories, OCIRepositories and
	// HelmCharts. nil: with AllowNetwork or FetchCharts a temporary cache,
	// else such releases are not rendered.
	Charts *charts.Cache
	// KubeVersion is the Kubernetes version for Helm capabilities.
	KubeVersion string
	// Sources maps sources to local directories (--source
	// kind/namespace/name=PATH); "." or the repository root maps one to
	// this checkout.
	Sources map[SourceKey]string
	// Vars are values for variables that only the cluster holds: they fill
	// the place of every substituteFrom ConfigMap or Secret routeguard
	// cannot read (--var, --vars-file). Variables the repository sets win.
	Vars map[string]string
	// Progress, when set, is told when a node starts and ends.
	Progress func(Event)
	// Workers bounds concurrent builds (default: GOMAXPROCS).
	Workers int
	// MaxFileBytes caps every file read (default
	// manifest.DefaultMaxFileBytes).
	MaxFileBytes int64
	// TraceNodes records what each node's build observed of this checkout
	// (Node.Trace) and read of the cluster (affected-only reviews).
	TraceNodes bool
	// Reuse, when set, takes a node from another revision's build instead
	// of building it when nothing it reads differs (affected-only reviews).
	Reuse *Reuse
	// Shard, when set, builds one shard of a review (flux diff --shard):
	// nodes of other shards that cannot produce Flux objects are left
	// out, and every build of a held node is carried (shard.go).
	Shard *ShardPlan
	// Carried, when set, takes a node from a shard's build of it when its
	// object and cluster inputs are the same (report merge; shard.go).
	Carried *Carried
}

// SourceKey names a Flux source: GitRepository, OCIRepository, Bucket,
// HelmRepository, HelmChart or ExternalArtifact.
type SourceKey struct {
	Kind, Namespace, Name string
}

func (k SourceKey) String() string { return k.Kind + "/" + k.Namespace + "/" + k.Name }

var sourceKinds = []string{"GitRepository", "OCIRepository", "Bucket", "ExternalArtifact", "HelmRepository", "HelmChart"}

// ParseSource reads a --source value: kind/namespace/name=PATH.
func ParseSource(s string) (SourceKey, string, error) {
	ref, path, ok := strings.Cut(s, "=")
	parts := strings.Split(ref, "/")
	if !ok || path == "" || len(parts) != 3 || parts[1] == "" || parts[2] == "" {
		return SourceKey{}, "", fmt.Errorf("--source %q: want KIND/NAMESPACE/NAME=PATH, e.g. GitRepository/flux-system/platform=../platform", s)
	}
	for _, k := range sourceKinds {
		if strings.EqualFold(k, parts[0]) {
			return SourceKey{Kind: k, Namespace: parts[1], Name: parts[2]}, path, nil
		}
	}
	return SourceKey{}, "", fmt.Errorf("--source %q: kind %q is not a Flux source (%s)", s, parts[0], strings.Join(sourceKinds, ", "))
}

// Phase of a progress Event.
type Phase int

// Progress phases.
const (
	Started Phase = iota
	Finished
)

// Event reports progress on one node.
type Event struct {
	Node     *Node
	Phase    Phase
	Duration time.Duration // when Finished
}

func (o *Options) progress(n *Node, p Phase, d time.Duration) {
	if o.Progress != nil {
		o.Progress(Event{Node: n, Phase: p, Duration: d})
	}
}
