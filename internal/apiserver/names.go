package apiserver

import (
	"strings"

	metavalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	appsvalidation "k8s.io/kubernetes/pkg/apis/apps/validation"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	networkingvalidation "k8s.io/kubernetes/pkg/apis/networking/validation"
	rbacvalidation "k8s.io/kubernetes/pkg/apis/rbac/validation"
	"k8s.io/kubernetes/pkg/features"
)

// nameFunc is the API server's validation of metadata.name (prefix: the
// name is a generateName, to which the server appends a suffix).
type nameFunc func(name string, prefix bool) []string

var subdomain nameFunc = metavalidation.NameIsDNSSubdomain

// builtinNames is, kind by kind, the name validation that the registry
// strategies of k8s.io/kubernetes v1.37.1 pass to ValidateObjectMeta
// (pkg/apis/<group>/validation); kinds of these groups not listed get
// only the rule every kind has (nameRule). The groups' packages that
// internal/apiserver links already give their functions; for the others
// the rule is written out as their code has it.
var builtinNames = map[schema.GroupKind]nameFunc{
	{Kind: "Pod"}:                   corevalidation.ValidatePodName,
	{Kind: "Node"}:                  corevalidation.ValidateNodeName,
	{Kind: "Namespace"}:             corevalidation.ValidateNamespaceName,
	{Kind: "LimitRange"}:            corevalidation.ValidateLimitRangeName,
	{Kind: "ResourceQuota"}:         corevalidation.ValidateResourceQuotaName,
	{Kind: "Secret"}:                corevalidation.ValidateSecretName,
	{Kind: "ServiceAccount"}:        corevalidation.ValidateServiceAccountName,
	{Kind: "Endpoints"}:             corevalidation.ValidateEndpointsName,
	{Kind: "ConfigMap"}:             corevalidation.ValidateConfigMapName,
	{Kind: "PersistentVolume"}:      corevalidation.ValidatePersistentVolumeName,
	{Kind: "PersistentVolumeClaim"}: corevalidation.ValidatePersistentVolumeName,
	{Kind: "ReplicationController"}: subdomain,
	{Kind: "PodTemplate"}:           subdomain,

	{Group: "apps", Kind: "Deployment"}:         appsvalidation.ValidateDeploymentName,
	{Group: "apps", Kind: "ReplicaSet"}:         appsvalidation.ValidateReplicaSetName,
	{Group: "apps", Kind: "StatefulSet"}:        appsvalidation.ValidateStatefulSetName,
	{Group: "apps", Kind: "DaemonSet"}:          appsvalidation.ValidateDaemonSetName,
	{Group: "apps", Kind: "ControllerRevision"}: appsvalidation.ValidateControllerRevisionName,

	{Group: "batch", Kind: "Job"}:     subdomain,
	{Group: "batch", Kind: "CronJob"}: subdomain,

	{Group: "networking.k8s.io", Kind: "Ingress"}:       networkingvalidation.ValidateIngressName,
	{Group: "networking.k8s.io", Kind: "IngressClass"}:  networkingvalidation.ValidateIngressClassName,
	{Group: "networking.k8s.io", Kind: "NetworkPolicy"}: networkingvalidation.ValidateNetworkPolicyName,
	{Group: "networking.k8s.io", Kind: "IPAddress"}:     networkingvalidation.ValidateIPAddressName,
	{Group: "networking.k8s.io", Kind: "ServiceCIDR"}:   networkingvalidation.ValidateServiceCIDRName,

	{Group: "policy", Kind: "PodDisruptionBudget"}: subdomain,

	{Group: "rbac.authorization.k8s.io", Kind: "Role"}:               rbacvalidation.ValidateRBACName,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:        rbacvalidation.ValidateRBACName,
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:        rbacvalidation.ValidateRBACName,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}: rbacvalidation.ValidateRBACName,

	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}: subdomain,

	{Group: "storage.k8s.io", Kind: "StorageClass"}:          subdomain,
	{Group: "storage.k8s.io", Kind: "VolumeAttachment"}:      subdomain,
	{Group: "storage.k8s.io", Kind: "CSINode"}:               subdomain,
	{Group: "storage.k8s.io", Kind: "CSIStorageCapacity"}:    subdomain,
	{Group: "storage.k8s.io", Kind: "VolumeAttributesClass"}: subdomain,

	{Group: "scheduling.k8s.io", Kind: "PriorityClass"}: subdomain,

	{Group: "coordination.k8s.io", Kind: "Lease"}: subdomain,

	{Group: "node.k8s.io", Kind: "RuntimeClass"}: subdomain,

	{Group: "discovery.k8s.io", Kind: "EndpointSlice"}: subdomain,

	{Group: "flowcontrol.apiserver.k8s.io", Kind: "FlowSchema"}:                 subdomain,
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "PriorityLevelConfiguration"}: subdomain,

	{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}:   subdomain,
	{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}:     subdomain,
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicy"}:        subdomain,
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicyBinding"}: subdomain,
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicy"}:          subdomain,
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicyBinding"}:   subdomain,

	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}: subdomain,
}

// aggregated reports a group served by an aggregated API server with
// rules of its own (OpenShift's, the metrics APIs), which routeguard does
// not know: only the rule every kind has applies.
func aggregated(group string) bool {
	switch group {
	case "metrics.k8s.io", "custom.metrics.k8s.io", "external.metrics.k8s.io":
		return true
	}
	return group == "openshift.io" || strings.HasSuffix(group, ".openshift.io")
}

// ObjectName returns why the API server refuses name as the metadata.name
// of an object of gk (prefix: a generateName), in its own words; nil when
// it accepts it. Every kind's name is one segment of a URL path (no "/" or
// "%", not "." or ".."); built-in kinds then have their strategy's rule
// (a DNS-1123 subdomain for most, a DNS-1035 or DNS-1123 label for
// Service and Namespace, a path segment for RBAC), and custom resources
// the rule apiextensions-apiserver applies to every one of them: a
// DNS-1123 subdomain. A name holding a Flux variable reference ("${")
// is not judged: it is substituted before it reaches the API server.
func ObjectName(gk schema.GroupKind, name string, prefix bool) []string {
	if strings.Contains(name, "${") {
		return nil
	}
	if msgs := path.IsValidPathSegmentName(name); len(msgs) > 0 && !prefix {
		return msgs
	} else if msgs := path.IsValidPathSegmentPrefix(name); len(msgs) > 0 && prefix {
		return msgs
	}
	rule := nameRule(gk)
	if rule == nil {
		return nil
	}
	return rule(name, prefix)
}

func nameRule(gk schema.GroupKind) nameFunc {
	if gk.Group == "" && gk.Kind == "Service" {
		// KEP-5311: with RelaxedServiceNameValidation a DNS-1123 label,
		// else a DNS-1035 label (ValidateServiceCreate).
		if utilfeature.DefaultFeatureGate.Enabled(features.RelaxedServiceNameValidation) {
			return metavalidation.NameIsDNSLabel
		}
		return corevalidation.ValidateServiceName
	}
	if f, ok := builtinNames[gk]; ok {
		return f
	}
	if IsBuiltinGroup(gk.Group) || aggregated(gk.Group) {
		return nil
	}
	return subdomain
}
