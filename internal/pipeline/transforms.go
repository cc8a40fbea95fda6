package pipeline

import (
	"maps"

	"github.com/routeguard/routeguard/internal/config"
)

// MergeTransforms merges the caller's overrides into the configured
// transforms, the one way every front door does: weights are replaced per
// service (a service the overrides do not name keeps its configured
// weights), and sync waves are on when either asks. Nil means nothing to do.
func MergeTransforms(cfg *config.Transforms, o Overrides) *config.Transforms {
	if cfg == nil && len(o.Weights) == 0 && !o.SyncWaves {
		return nil
	}
	t := &config.Transforms{SyncWaves: o.SyncWaves}
	if cfg != nil {
		t.SyncWaves = t.SyncWaves || cfg.SyncWaves
		t.Weights = maps.Clone(cfg.Weights)
	}
	if len(o.Weights) > 0 && t.Weights == nil {
		t.Weights = make(map[string]map[string]int, len(o.Weights))
	}
	maps.Copy(t.Weights, o.Weights)
	return t
}
