package argocdcmp

import (
	"fmt"
	"slices"
	"strings"
)

// Build is the environment argocd-cmp-server gives the plugin's commands
// (see Argo CD's reposerver newEnv and getPluginEnvs).
type Build struct {
	AppName         string   // ARGOCD_APP_NAME
	AppNamespace    string   // ARGOCD_APP_NAMESPACE: the destination namespace
	Revision        string   // ARGOCD_APP_REVISION
	RepoURL         string   // ARGOCD_APP_SOURCE_REPO_URL
	SourcePath      string   // ARGOCD_APP_SOURCE_PATH: the app's path in the repository
	TargetRevision  string   // ARGOCD_APP_SOURCE_TARGET_REVISION
	KubeVersion     string   // KUBE_VERSION
	KubeAPIVersions []string // KUBE_API_VERSIONS, comma-separated
	// PluginEnv holds spec.source.plugin.env of the Application: the
	// ARGOCD_ENV_<name> variables, keyed by <name>.
	PluginEnv map[string]string
	// Params are spec.source.plugin.parameters.
	Params Parameters
	// SidecarAllowNetwork is ROUTEGUARD_ALLOW_NETWORK of the sidecar itself.
	SidecarAllowNetwork string
}

// Plugin env names routeguard reads (ARGOCD_ENV_<name>).
const (
	EnvFailOn       = "FAIL_ON"
	EnvReport       = "REPORT"
	EnvAllowNetwork = "ALLOW_NETWORK"
)

var knownPluginEnv = []string{EnvAllowNetwork, EnvFailOn, EnvReport}

// KnownPluginEnv lists the plugin env names (ARGOCD_ENV_<name>) routeguard reads.
func KnownPluginEnv() []string { return slices.Clone(knownPluginEnv) }

// FromEnv reads the build environment. environ is only scanned for the
// ARGOCD_ENV_ and PARAM_ prefixes; no other variable is kept.
func FromEnv(getenv func(string) string, environ func() []string) (*Build, error) {
	b := &Build{
		AppName:             getenv("ARGOCD_APP_NAME"),
		AppNamespace:        getenv("ARGOCD_APP_NAMESPACE"),
		Revision:            getenv("ARGOCD_APP_REVISION"),
		RepoURL:             getenv("ARGOCD_APP_SOURCE_REPO_URL"),
		SourcePath:          getenv("ARGOCD_APP_SOURCE_PATH"),
		TargetRevision:      getenv("ARGOCD_APP_SOURCE_TARGET_REVISION"),
		KubeVersion:         getenv("KUBE_VERSION"),
		SidecarAllowNetwork: getenv("ROUTEGUARD_ALLOW_NETWORK"),
		PluginEnv:           map[string]string{},
	}
	if v := getenv("KUBE_API_VERSIONS"); v != "" {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				b.KubeAPIVersions = append(b.KubeAPIVersions, s)
			}
		}
	}
	var vars []string
	if environ != nil {
		vars = environ()
	}
	paramVars := map[string]string{}
	for _, kv := range vars {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		switch {
		case strings.HasPrefix(k, "ARGOCD_ENV_"):
			// An empty value is no setting. Argo CD 2.x dropped empty
			// variables before starting the plugin; 3.0 passes them (an
			// Application's plugin.env entry with value ""), so an empty
			// variable routeguard does not read is accepted, as before.
			if v == "" {
				continue
			}
			b.PluginEnv[strings.TrimPrefix(k, "ARGOCD_ENV_")] = v
		case strings.HasPrefix(k, "PARAM_"):
			paramVars[k] = v
		}
	}
	for name := range b.PluginEnv {
		if !contains(knownPluginEnv, name) {
			return nil, fmt.Errorf("plugin env %s (ARGOCD_ENV_%s) is not one routeguard reads; use %s in the Application's spec.source.plugin.env",
				name, name, strings.Join(knownPluginEnv, ", "))
		}
	}
	params, err := parseParameters(getenv("ARGOCD_APP_PARAMETERS"), paramVars)
	if err != nil {
		return nil, err
	}
	b.Params = params
	return b, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
