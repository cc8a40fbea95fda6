package transform

import (
	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Apply runs the configured transforms on set, in place, in a fixed order:
// weights, then sync waves. A nil cfg does nothing. Errors name the object
// and its file:line, or the config entry, and say what to change.
func Apply(set *manifest.Set, cfg *config.Transforms) error {
	if cfg == nil {
		return nil
	}
	if len(cfg.Weights) > 0 {
		if err := config.ValidateWeights(cfg.Weights); err != nil {
			return err
		}
		if err := applyWeights(set, cfg.Weights); err != nil {
			return err
		}
	}
	if cfg.SyncWaves {
		applySyncWaves(set)
	}
	return nil
}
