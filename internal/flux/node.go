package flux

import (
	"fmt"
	"time"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
)

// Status is what became of a node.
type Status int

// Node statuses.
const (
	Pending Status = iota
	Built          // built (Kustomization) or rendered (HelmRelease)
	Skipped        // its source cannot be read here; Reason says why
	Failed         // the controller would fail too; Reason says why
)

func (s Status) String() string {
	return [...]string{"pending", "built", "skipped", "failed"}[s]
}

// Node is one Kustomization or HelmRelease of the tree.
type Node struct {
	// Object is the Flux object as the cluster would hold it: as its
	// parent's build produced it (patched, substituted). For the root of a
	// cluster directory without a sync Kustomization it is synthetic.
	Object *manifest.Object
	Parent *Node // nil for a root
	Status Status
	// Reason says why the node was skipped or failed.
	Reason string
	// SkipKind groups skip reasons for the summary ("OCIRepository source",
	// "chart not in the cache", ...).
	SkipKind string
	// MissingSource is the chart source a skipped HelmRelease names and
	// the tree does not apply, when that is why it was skipped.
	MissingSource *manifest.Key
	// Objects are what the node applies, in build order (before duplicates
	// of other nodes' objects are dropped).
	Objects  []*manifest.Object
	Duration time.Duration
	// Dir is the directory whose .routeguard.yaml applies to the node: the
	// Kustomization's spec.path or the chart's directory in this checkout,
	// "" when neither is in it.
	Dir string
	// Unrendered says where the objects the node could not build would be.
	Unrendered []analysis.UnrenderedScope
	// Partial says what a node that was built left out (a remote file
	// offline, inputs only the cluster has): it is built, but not whole;
	// Unrendered holds the scopes of what it left out.
	Partial []string
	// RoutingFiles says what a node that was not built holds of routing,
	// as far as the repository shows it (files of its path or chart with
	// routing objects, routing values): what went unchecked.
	RoutingFiles []string
	// Trace is what its build observed of this checkout
	// (Options.TraceNodes; nil without).
	Trace *confine.Trace
	// Reused says the node was taken from another revision's build
	// (Options.Reuse) instead of being built.
	Reused bool

	index int // discovery order
	// inputs: what its build read of the cluster (inputsOf; with
	// Options.TraceNodes or Options.Reuse).
	inputs    string
	synthetic bool
	dependsOn []manifest.Key
	findings  []analysis.Finding
	notices   []notice.Notice
	// clusterSources: substituteFrom/valuesFrom sources only the cluster has.
	clusterSources []*clusterSource
	// mutatedBy names the substitution webhook whose variables the node
	// was built with ("" when none was known yet).
	mutatedBy string
	// duplicates: objects it applies that another node applied first.
	duplicates []duplicate
}

// IsKustomization reports whether the node is a Flux Kustomization.
func (n *Node) IsKustomization() bool { return n.Object.Kind == "Kustomization" }

// IsResourceSet reports whether the node is a flux-operator ResourceSet.
func (n *Node) IsResourceSet() bool { return isResourceSet(n.Object) }

// Key is the node's object key.
func (n *Node) Key() manifest.Key { return n.Object.Key() }

// String renders "Kind ns/name".
func (n *Node) String() string { return n.Object.String() }

// describe names the node and where its object comes from.
func (n *Node) describe() string {
	return fmt.Sprintf("%s (%s)", n.Object, n.Object.Source)
}

// The skip kinds of a HelmRelease whose chart (or the chart's
// dependencies) is in a chart repository routeguard did not fetch: offline
// without the chart in the cache, or the fetch failed.
const (
	skipChartOffline      = "chart needs the network"
	skipChartNotCached    = "chart not in the cache"
	skipChartFetchFailed  = "chart fetch failed"
	skipChartDependencies = "chart dependencies out of reach"
)

// ChartNotFetched reports whether n was skipped because its chart, or the
// chart's dependencies, could not be had from a chart repository
// (--fetch-charts fetches them; --chart-cache keeps them).
func (n *Node) ChartNotFetched() bool {
	if n.Status != Skipped {
		return false
	}
	switch n.SkipKind {
	case skipChartOffline, skipChartNotCached, skipChartFetchFailed, skipChartDependencies:
		return true
	}
	return false
}
