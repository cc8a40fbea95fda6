package cli

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/crds"
)

// clusterFlags say what routeguard knows of the target cluster, for the
// validation analyzers (see docs/validation.md).
type clusterFlags struct {
	crdDir            string
	gatewayAPIChannel string
}

// clusterOf builds the analysis' view of the target cluster: its Kubernetes
// version (--kube-version, else $KUBE_VERSION), the API versions Argo CD
// reports for it ($KUBE_API_VERSIONS: the cluster's full list, which Argo CD
// computes from discovery; --api-versions only adds Helm capabilities and
// is not used), the CRDs of --crd-dir and the Gateway API channel.
func clusterOf(env *Env, kubeVersion string, f clusterFlags) (analysis.Cluster, error) {
	k := analysis.Cluster{KubeVersion: cmp.Or(kubeVersion, env.Getenv("KUBE_VERSION")), GatewayAPIChannel: f.gatewayAPIChannel}
	if v := env.Getenv("KUBE_API_VERSIONS"); v != "" {
		k.APIVersions = strings.Split(v, ",")
	}
	if f.crdDir != "" {
		objs, err := crds.LoadDir(f.crdDir)
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
