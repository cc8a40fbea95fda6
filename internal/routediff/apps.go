package routediff

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/routeguard/routeguard/internal/pipeline"
)

// AppCounts say how much of each revision a whole-tree review built
// (argocd diff, flux diff): the review's header gives them.
type AppCounts struct {
	// Kind names what is counted ("Applications", "Kustomizations and
	// HelmReleases").
	Kind string `json:"kind"`
	// Built were built at both revisions (or at the one holding them).
	Built int `json:"built"`
	// Unaffected were built once, at head: nothing their render read
	// differs at base (--changed-from, --changed-files), so base would
	// build the same objects.
	Unaffected int `json:"unaffected"`
	// NotBuildable could not be built whole at head or at base (failed,
	// skipped, partly rendered): what they hold is in NotBuilt.
	NotBuildable int `json:"notBuildable"`
	// Shard is the shard of the run ("I/N"; "" not sharded) and
	// OtherShards the apps left to the other shards.
	Shard       string `json:"shard,omitempty"`
	OtherShards int    `json:"otherShards,omitempty"`
}

// String is the header line: "Applications: 3 built, 1,997 unaffected
// (built once), 0 not buildable".
func (c *AppCounts) String() string {
	s := fmt.Sprintf("%s: %d built, %d unaffected (built once), %d not buildable", c.Kind, c.Built, c.Unaffected, c.NotBuildable)
	if c.Shard != "" {
		s += fmt.Sprintf("; shard %s, %d left to the other shards", c.Shard, c.OtherShards)
	}
	return s
}

// PairFunc builds and analyzes both revisions at once (so that what the
// change cannot affect is built once), starting at rels, and counts what
// it built.
type PairFunc func(ctx context.Context, baseRoot, headRoot string, rels []string) (base, head *pipeline.Outcome, apps *AppCounts, err error)

// buildPair runs opts.Pair; the outcomes are filed under the first path,
// as buildBoth files them.
func buildPair(ctx context.Context, opts Options, rels []string, baseRoot, headRoot string) (baseOut, headOut map[string]*pipeline.Outcome, apps *AppCounts, err error) {
	base, head, apps, err := opts.Pair(ctx, baseRoot, headRoot, rels)
	if err != nil {
		for _, root := range []string{baseRoot, headRoot} {
			err = fmt.Errorf("%s", strings.ReplaceAll(err.Error(), root+string(filepath.Separator), ""))
		}
		return nil, nil, nil, err
	}
	return map[string]*pipeline.Outcome{rels[0]: base}, map[string]*pipeline.Outcome{rels[0]: head}, apps, nil
}
