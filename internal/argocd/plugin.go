package argocd

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/routeguard/routeguard/internal/argocdcmp"
	"github.com/routeguard/routeguard/internal/manifest"
)

// renderPlugin renders a plugin source. routeguard's own plugin is run as
// argocd-cmp-server would run `routeguard cmp generate`: the environment
// Argo CD builds (ARGOCD_APP_*, KUBE_VERSION, KUBE_API_VERSIONS,
// ARGOCD_ENV_<name> for plugin.env, ARGOCD_APP_PARAMETERS and PARAM_*)
// read by the same code (cmp.FromEnv, Build.Settings, Build.Request), so
// substitution variables, weights and Helm options apply exactly as in
// the sidecar. Other plugins run in Argo CD's sidecars and are skipped.
func (b *sourceRenderer) renderPlugin(ctx context.Context, app *Application, src Source, appDir string) (*manifest.Set, error) {
	appTrace(ctx).Opaque("a plugin source")
	name := "routeguard"
	switch {
	case src.Plugin != nil && src.Plugin.Name != "":
		name = src.Plugin.Name
	case !b.opts.PluginDiscovery:
		// A plugin source that names none: Argo CD offers it to every
		// sidecar's discovery rule (a source that names no tool only
		// reaches here when routeguard's rule claimed it).
		return nil, skip("its source names no config management plugin, so Argo CD's repo-server picks the sidecar whose discovery rule matches; routeguard renders it only when that is its own opt-in rule (--cmp-discovery) and the directory holds the .routeguard-cmp marker")
	case !b.discoverPlugin(appDir):
		return nil, skip("its source names no config management plugin, and its directory holds no .routeguard-cmp marker for routeguard's discovery rule: another of Argo CD's sidecars renders it")
	}
	if !b.isRouteguardPlugin(name) {
		return nil, skip("its source uses the config management plugin %q, which only Argo CD's repo-server sidecar can run", name)
	}
	vars, err := b.pluginEnv(app, src)
	if err != nil {
		return nil, err
	}
	getenv := func(k string) string { return vars[k] }
	environ := func() []string {
		out := make([]string, 0, len(vars))
		for _, k := range slices.Sorted(maps.Keys(vars)) {
			out = append(out, k+"="+vars[k])
		}
		return out
	}
	build, err := argocdcmp.FromEnv(getenv, environ)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", name, err)
	}
	s, err := build.Settings()
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", name, err)
	}
	if b.opts.RenderPlugin == nil {
		return nil, fmt.Errorf("plugin %s: no renderer for routeguard's plugin was given", name)
	}
	req := build.Request(s, appDir)
	req.Render.RepoRoot = b.repo.root
	req.Render.Self = b.opts.Self
	req.Render.MaxFileBytes = b.opts.MaxFileBytes
	return b.opts.RenderPlugin(ctx, req)
}

func (b *sourceRenderer) isRouteguardPlugin(name string) bool {
	if len(b.opts.PluginNames) == 0 {
		return name == "routeguard" || strings.HasPrefix(name, "routeguard-")
	}
	return slices.Contains(b.opts.PluginNames, name)
}

// pluginEnv is Argo CD's getPluginEnvs for a source, plus the sidecar's
// ROUTEGUARD_ALLOW_NETWORK (the operator's --allow-network).
func (b *sourceRenderer) pluginEnv(app *Application, src Source) (map[string]string, error) {
	env := newBuildEnv(app, src, b.opts.Revision)
	vars := map[string]string(maps.Clone(env))
	vars["KUBE_VERSION"] = b.opts.KubeVersion
	vars["KUBE_API_VERSIONS"] = strings.Join(b.opts.APIVersions, ",")
	if b.opts.AllowNetwork {
		vars["ROUTEGUARD_ALLOW_NETWORK"] = "true"
	}
	if src.Plugin == nil {
		vars["ARGOCD_APP_PARAMETERS"] = "null"
		return vars, nil
	}
	for _, e := range src.Plugin.Env {
		vars["ARGOCD_ENV_"+e.Name] = env.Envsubst(e.Value)
	}
	params := src.Plugin.Parameters
	if params == nil {
		params = []PluginParameter{}
	}
	data, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	vars["ARGOCD_APP_PARAMETERS"] = string(data)
	for _, p := range src.Plugin.Parameters {
		base := "PARAM_" + paramEnvName(p.Name)
		if p.String != nil {
			vars[base] = *p.String
		}
		for k, v := range p.Map {
			vars[base+"_"+paramEnvName(k)] = v
		}
		for i, v := range p.Array {
			vars[base+"_"+strconv.Itoa(i)] = v
		}
	}
	return vars, nil
}

func paramEnvName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteRune('_')
		}
	}
	return b.String()
}

// discoverPlugin is routeguard's opt-in discover rule (cmp discover,
// cmp/discovery): the directory holds the .routeguard-cmp marker.
func (b *sourceRenderer) discoverPlugin(appDir string) bool {
	match, err := argocdcmp.Discover(appDir)
	return err == nil && match != ""
}
