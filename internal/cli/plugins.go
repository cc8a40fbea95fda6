package cli

import (
	"cmp"
	"fmt"
	"os"

	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/pipeline"
)

// PluginsEnv names the operator's plugin catalog where no --plugins flag
// can be given (the Argo CD sidecar's environment).
const PluginsEnv = "ROUTEGUARD_PLUGINS"

// pluginHost reads the operator's plugin catalog (flag, else $ROUTEGUARD_PLUGINS;
// none: only routeguard-istio may run) for the pipeline.
func pluginHost(env *Env, flag string) (pipeline.PluginHost, error) {
	h := pipeline.PluginHost{Executable: env.Executable, Getenv: env.Getenv}
	file := cmp.Or(flag, env.Getenv(PluginsEnv))
	if file == "" {
		return h, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return h, fmt.Errorf("plugin catalog (--plugins or %s): %w", PluginsEnv, err)
	}
	cat, err := config.ParseCatalog(file, data)
	if err != nil {
		return h, err
	}
	h.Catalog, h.CatalogFile = cat, file
	return h, nil
}
