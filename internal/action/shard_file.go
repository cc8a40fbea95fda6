package action

import (
	"github.com/routeguard/routeguard/internal/argocd"
	"github.com/routeguard/routeguard/internal/flux"
	"github.com/routeguard/routeguard/internal/routediff"
)

// The shard file is what one job of a CI matrix (argocd diff or flux
// diff --shard I/N --shard-out FILE) hands routeguard report merge: one
// format for both reviews, checked the same way (report_merge.go).

// ShardFormat and ShardVersion name the shard file's format.
const (
	ShardFormat  = "routeguard-review-shard"
	ShardVersion = 1
)

// ShardFile is one shard's part of a review.
type ShardFile struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Command is the review the shard is of ("argocd diff", "flux
	// diff").
	Command string        `json:"command"`
	Base    routediff.Rev `json:"base"`
	Head    routediff.Rev `json:"head"`
	// Index (1..Count) and Count: the shard, as --shard I/N gave it.
	Index int `json:"index"`
	Count int `json:"count"`
	// Options are the review's options; every shard of a review has the
	// same.
	Options ShardOptions `json:"options"`
	// Apps are the identities (Kind/namespace/name) of the Applications,
	// or Kustomizations, HelmReleases and ResourceSets, the shard holds,
	// at either revision, sorted.
	Apps []string `json:"apps"`
	// LeftOut are the keys of the Applications (the identities of the
	// Flux nodes) of other shards this shard did not render, at either
	// revision, sorted.
	LeftOut []string `json:"leftOut"`
	// Revisions are what the held Applications rendered: [0] base, [1]
	// head.
	Revisions [2]ShardRevision `json:"revisions"`
	// Paths are what the held app paths became at both revisions
	// (routeguard diff), in path order.
	Paths []CarriedPath `json:"appPaths,omitempty"`
}

// Built counts what the shard built at each revision.
func (f *ShardFile) Built() (base, head int) {
	for _, p := range f.Paths {
		base += btoi(p.Same || p.Base != nil)
		head += btoi(p.Same || p.Head != nil)
	}
	return base + len(f.Revisions[0].Apps) + len(f.Revisions[0].Nodes), head + len(f.Revisions[1].Apps) + len(f.Revisions[1].Nodes)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ShardRevision is what one revision's held Applications rendered, in
// build order (argocd diff), or every build of its held Flux nodes, in
// the order they finished (flux diff).
type ShardRevision struct {
	Apps  []argocd.Carried    `json:"apps,omitempty"`
	Nodes []flux.CarriedBuild `json:"nodes,omitempty"`
}

// ShardOptions are the options of argocd diff or flux diff a shard was
// built with, which the merge runs the review with: data only (no file
// the merge would read, no program it would run). The Flux ones are
// Strict and Vars; MaxFileMiB and those after it to AllowNetwork are
// Argo CD's.
type ShardOptions struct {
	Paths              []string `json:"paths"`
	Review             string   `json:"review,omitempty"`
	IgnorePointers     []string `json:"ignorePointers,omitempty"`
	CodeOwners         string   `json:"codeowners,omitempty"`
	RepoURLs           []string `json:"repoURLs,omitempty"`
	Clusters           []string `json:"clusters,omitempty"`
	AppNamespace       string   `json:"appNamespace,omitempty"`
	KubeVersion        string   `json:"kubeVersion,omitempty"`
	APIVersions        []string `json:"apiVersions,omitempty"`
	Revision           string   `json:"revision,omitempty"`
	PluginDiscovery    bool     `json:"pluginDiscovery,omitempty"`
	NewGitFileGlobbing bool     `json:"newGitFileGlobbing,omitempty"`
	MaxFileMiB         int64    `json:"maxFileMiB,omitempty"`
	Now                string   `json:"now,omitempty"`
	AllowNetwork       bool     `json:"allowNetwork,omitempty"`
	FetchCharts        bool     `json:"fetchCharts,omitempty"`
	GatewayAPIChannel  string   `json:"gatewayAPIChannel,omitempty"`
	// Namespace, ConfigFile and AppFlags are routeguard diff's: the
	// namespace of objects that name none, --config, and every render and
	// analysis flag (JSON), which the shards must agree on.
	Namespace  string   `json:"namespace,omitempty"`
	ConfigFile string   `json:"configFile,omitempty"`
	AppFlags   string   `json:"appFlags,omitempty"`
	Strict     string   `json:"strict,omitempty"`
	Vars       []string `json:"vars,omitempty"`
	// Sources are flux diff's --source mappings of directories inside the
	// repository, each path a slash path from its top
	// (flux_shard_sources.go).
	Sources []string `json:"sources,omitempty"`
}
