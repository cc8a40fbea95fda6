package action

import (
	"cmp"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/crds"
	"github.com/routeguard/routeguard/internal/pipeline"
)

// PluginsEnv names the operator's plugin catalog where no --plugins flag
// can be given (the Argo CD sidecar's environment).
const PluginsEnv = "ROUTEGUARD_PLUGINS"

// AnalysisOptions are the options of every action that runs the analysis.
type AnalysisOptions struct {
	// FailOn is the lowest severity that fails the run (unset: the
	// configuration's failOn, else error).
	FailOn analysis.FailOn
	// ConfigFile is the .routeguard.yaml to use (default: the app's, else
	// the repository root's).
	ConfigFile string
	// Plugins is the operator's plugin catalog (default: $ROUTEGUARD_PLUGINS).
	Plugins string
	Cluster ClusterOptions
}

// ClusterOptions say what is known of the target cluster, for the
// validation analyzers (see docs/validation.md).
type ClusterOptions struct {
	// CRDDir holds the cluster's CRDs (they take precedence over the
	// bundled ones).
	CRDDir string
	// GatewayAPIChannel is the channel of the cluster's Gateway API CRDs:
	// standard or experimental ("" not known).
	GatewayAPIChannel string
}

// analysis sets up what every analysis runs with: the plugin host, the
// view of the target cluster (kubeVersion: else $KUBE_VERSION), the
// failing severity and the namespace of objects that name none.
func (o AnalysisOptions) analysis(env Env, kubeVersion, namespace string) (*pipeline.Analysis, error) {
	host, err := pluginHost(env, o.Plugins)
	if err != nil {
		return nil, err
	}
	cluster, err := clusterOf(env, kubeVersion, o.Cluster)
	if err != nil {
		return nil, err
	}
	return &pipeline.Analysis{FailOn: o.FailOn, Plugins: host, Cluster: cluster, DefaultNamespace: namespace}, nil
}

// pluginHost reads the operator's plugin catalog (catalog, else
// $ROUTEGUARD_PLUGINS; none: only routeguard-istio may run).
func pluginHost(env Env, catalog string) (pipeline.PluginHost, error) {
	h := pipeline.PluginHost{Executable: env.Executable, Getenv: env.Getenv}
	file := cmp.Or(catalog, env.Getenv(PluginsEnv))
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

// clusterOf builds the analysis' view of the target cluster: its Kubernetes
// version (kubeVersion, else $KUBE_VERSION), the API versions Argo CD
// reports for it ($KUBE_API_VERSIONS: the cluster's full list, which Argo CD
// computes from discovery; --api-versions only adds Helm capabilities and
// is not used), the CRDs of the CRD directory and the Gateway API channel.
//
// A --kube-version that is not a Kubernetes version is the user's mistake
// and an error. $KUBE_VERSION is what Argo CD read from the cluster (a
// cluster built from source reports v0.0.0): when it is not a release
// version, the run goes on with the version unknown and a warning, as it
// would with no KUBE_VERSION at all, instead of failing every app.
func clusterOf(env Env, kubeVersion string, o ClusterOptions) (analysis.Cluster, error) {
	if kubeVersion == "" {
		if v := env.Getenv("KUBE_VERSION"); v != "" {
			if analysis.IsKubeVersion(v) {
				kubeVersion = v
			} else {
				env.warn("KUBE_VERSION %s is not a Kubernetes release version like 1.31 or v1.31.2; the cluster's version is taken as unknown (checks that depend on it are warnings)", strconv.Quote(v))
			}
		}
	}
	k := analysis.Cluster{KubeVersion: kubeVersion, GatewayAPIChannel: o.GatewayAPIChannel}
	if v := env.Getenv("KUBE_API_VERSIONS"); v != "" {
		k.APIVersions = strings.Split(v, ",")
	}
	if o.CRDDir != "" {
		objs, err := crds.LoadDir(o.CRDDir)
		if err != nil {
			return k, fmt.Errorf("--crd-dir: %w", err)
		}
		k.CRDs = objs
	}
	if err := k.Validate(); err != nil {
		return k, fmt.Errorf("--kube-version, KUBE_VERSION or --gateway-api-channel: %w", err)
	}
	return k, nil
}
