package pipeline

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/render"
)

// renderContext renders the configuration's context paths into one set,
// each with the render options of base (network, size limit, Helm
// capabilities) and its own Helm and directory settings. Their objects only
// resolve references; an object rendered by two context paths is kept once.
func renderContext(ctx context.Context, cfg *config.Config, repoRoot string, base render.Options) (*manifest.Set, error) {
	set := manifest.NewSet()
	for _, cp := range cfg.ContextPaths {
		opts := render.Options{
			Path:         filepath.Join(repoRoot, filepath.FromSlash(cp.Path)),
			RepoRoot:     repoRoot,
			AllowNetwork: base.AllowNetwork,
			MaxFileBytes: base.MaxFileBytes,
			Self:         base.Self,
			Helm: render.HelmOptions{Namespace: cp.Namespace, Release: cp.Release, ValuesFiles: cp.Values,
				KubeVersion: base.Helm.KubeVersion, APIVersions: base.Helm.APIVersions, IncludeCRDs: true},
			Directory: render.DirectoryOptions{Recurse: cp.Recurse},
		}
		res, err := render.Render(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("%s: rendering context path %s: %w", cfg.File, cp.Path, err)
		}
		for _, o := range res.Set.Objects() {
			if _, dup := set.Get(o.Key()); dup {
				continue
			}
			if err := set.Add(o); err != nil {
				return nil, err
			}
		}
	}
	return set, nil
}
