package cli

import (
	"fmt"
	"strconv"
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
//
// A --kube-version that is not a Kubernetes version is the user's mistake
// and an error. $KUBE_VERSION is what Argo CD read from the cluster (a
// cluster built from source reports v0.0.0): when it is not a release
// version, the run goes on with the version unknown and a warning, as it
// would with no KUBE_VERSION at all, instead of failing every app.
func clusterOf(env *Env, kubeVersion string, f clusterFlags) (analysis.Cluster, error) {
	if kubeVersion == "" {
		if v := env.Getenv("KUBE_VERSION"); v != "" {
			if analysis.IsKubeVersion(v) {
				kubeVersion = v
			} else {
				fmt.Fprintf(env.Stderr, "routeguard: warning: KUBE_VERSION %s is not a Kubernetes release version like 1.31 or v1.31.2; the cluster's version is taken as unknown (checks that depend on it are warnings)\n", strconv.Quote(v))
			}
		}
	}
	k := analysis.Cluster{KubeVersion: kubeVersion, GatewayAPIChannel: f.gatewayAPIChannel}
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
