package pipeline

import (
	"fmt"
	"path/filepath"

	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/plugins"
)

// refuseRepositoryPlugins refuses plugin binaries that the repository could
// supply. Plugins must live outside the repository (an absolute plugins.dir
// or path, e.g. in the sidecar image) and be pinned by checksum.
func refuseRepositoryPlugins(cfg *config.Config, repoRoot string) error {
	if cfg.Plugins == nil {
		return nil
	}
	if cfg.Plugins.InsecureSkipVerify {
		return fmt.Errorf("%s: plugins.insecureSkipVerify is refused by cmp generate: the Argo CD sidecar runs only plugins pinned by checksum; remove it", cfg.File)
	}
	specs, err := plugins.Specs(cfg.Plugins, cfg.File, repoRoot)
	if err != nil {
		return err
	}
	rootReal, err := filepath.EvalSymlinks(repoRoot)
	if err != nil {
		return err
	}
	for _, sp := range specs {
		p := sp.Path
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if rel, err := filepath.Rel(rootReal, p); err == nil && filepath.IsLocal(rel) {
			return fmt.Errorf("%s: plugin %s is inside the repository (%s); cmp generate runs nothing from the repository it renders: "+
				"put plugin binaries in the sidecar image and name them by absolute path (plugins.dir), see docs/cmp.md", cfg.File, sp.Name, filepath.ToSlash(rel))
		}
	}
	return nil
}
