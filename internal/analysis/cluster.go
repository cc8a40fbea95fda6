package analysis

import (
	"fmt"
	"regexp"

	"github.com/routeguard/routeguard/internal/manifest"
)

// Cluster is what routeguard knows of the cluster the objects are applied
// to. Its zero value means nothing is known: the newest Kubernetes release
// routeguard knows decides which built-in API versions exist (findings that
// depend on it are warnings), and the bundled CRDs define custom resources.
type Cluster struct {
	// KubeVersion is the cluster's Kubernetes version ("1.31", "v1.31.2";
	// --kube-version, Argo CD's KUBE_VERSION).
	KubeVersion string
	// APIVersions are the API versions the cluster serves
	// ("networking.k8s.io/v1", "apps/v1/Deployment"; --api-versions, Argo
	// CD's KUBE_API_VERSIONS). When set, an apiVersion that is not among
	// them, and that no CRD of the app defines, is not served.
	APIVersions []string
	// CRDs are the CustomResourceDefinitions the cluster has (--crd-dir).
	// They take precedence over the bundled ones.
	CRDs []*manifest.Object
	// GatewayAPIChannel is the channel of the cluster's Gateway API CRDs:
	// "standard", "experimental", or "" (not known: what only the
	// experimental channel accepts is a warning, not an error).
	GatewayAPIChannel string
	// SubstitutedOnApply says that ${VAR} references in the objects are
	// replaced before they reach the API server (Flux's postBuild
	// substitution, after `routeguard analyze` of a source directory):
	// validation results they may explain are then not judged (RG5008,
	// info). `flux build` and `cmp generate` leave it false: what they
	// analyze is what is applied.
	SubstitutedOnApply bool
}

// Cluster returns what is known of the target cluster.
func (c *Context) Cluster() Cluster { return c.cluster }

// Validate checks the fields a user sets.
func (k Cluster) Validate() error {
	switch k.GatewayAPIChannel {
	case "", "standard", "experimental":
	default:
		return fmt.Errorf("the Gateway API channel %q is not standard or experimental", k.GatewayAPIChannel)
	}
	if k.KubeVersion != "" && !IsKubeVersion(k.KubeVersion) {
		return fmt.Errorf("kube version %q is not a Kubernetes version like 1.31 or v1.31.2", k.KubeVersion)
	}
	return nil
}

// IsKubeVersion says whether v reads as a Kubernetes release version
// ("1.31", "v1.31.2"); "0.0.0", which a cluster built from source reports,
// does not.
func IsKubeVersion(v string) bool { return kubeVersionRE.MatchString(v) }

var kubeVersionRE = regexp.MustCompile(`^v?[1-9][0-9]*\.[0-9]+`)
