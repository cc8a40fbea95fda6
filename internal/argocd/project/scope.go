package project

import (
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Scopes tells whether a kind is namespaced, as the cluster's API
// discovery would: Kubernetes' built-in kinds, the kinds of Argo CD,
// Gateway API and Istio, and every CustomResourceDefinition given. A kind
// none of them knows has an unknown scope.
type Scopes struct {
	crd map[manifest.GroupKind]bool // true: namespaced
}

// NewScopes returns the scopes of the built-in kinds and of the CRDs in
// sets.
func NewScopes(sets ...*manifest.Set) *Scopes {
	s := &Scopes{crd: map[manifest.GroupKind]bool{}}
	for _, set := range sets {
		if set == nil {
			continue
		}
		s.AddCRDs(set.ByKind("apiextensions.k8s.io", "CustomResourceDefinition"))
	}
	return s
}

// AddCRDs adds the scopes the CRDs declare.
func (s *Scopes) AddCRDs(crds []*manifest.Object) {
	for _, crd := range crds {
		group := field.String(crd.Body, "spec", "group")
		kind := field.String(crd.Body, "spec", "names", "kind")
		switch field.String(crd.Body, "spec", "scope") {
		case "Namespaced":
			s.crd[manifest.GroupKind{Group: group, Kind: kind}] = true
		case "Cluster":
			s.crd[manifest.GroupKind{Group: group, Kind: kind}] = false
		}
	}
}

// Namespaced reports whether gk is namespaced, and whether that is known.
func (s *Scopes) Namespaced(gk manifest.GroupKind) (namespaced, known bool) {
	if ns, ok := s.crd[gk]; ok {
		return ns, true
	}
	if ns, ok := builtinScopes[gk]; ok {
		return ns, true
	}
	switch gk.Group {
	case "gateway.networking.k8s.io":
		return gk.Kind != "GatewayClass", true
	case "networking.istio.io", "security.istio.io", "telemetry.istio.io", "extensions.istio.io":
		return true, true
	}
	return false, false
}

// builtinScopes are the kinds kube-apiserver 1.37 serves (and Argo CD's),
// true for namespaced.
var builtinScopes = map[manifest.GroupKind]bool{}

func init() {
	add := func(group string, namespaced bool, kinds ...string) {
		for _, k := range kinds {
			builtinScopes[manifest.GroupKind{Group: group, Kind: k}] = namespaced
		}
	}
	add("", true, "Binding", "ConfigMap", "Endpoints", "Event", "LimitRange", "PersistentVolumeClaim", "Pod",
		"PodTemplate", "ReplicationController", "ResourceQuota", "Secret", "Service", "ServiceAccount")
	add("", false, "ComponentStatus", "Namespace", "Node", "PersistentVolume")
	add("apps", true, "ControllerRevision", "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet")
	add("autoscaling", true, "HorizontalPodAutoscaler")
	add("batch", true, "CronJob", "Job")
	add("policy", true, "PodDisruptionBudget")
	add("networking.k8s.io", true, "Ingress", "NetworkPolicy")
	add("networking.k8s.io", false, "IngressClass", "IPAddress", "ServiceCIDR")
	add("discovery.k8s.io", true, "EndpointSlice")
	add("events.k8s.io", true, "Event")
	add("coordination.k8s.io", true, "Lease", "LeaseCandidate")
	add("rbac.authorization.k8s.io", true, "Role", "RoleBinding")
	add("rbac.authorization.k8s.io", false, "ClusterRole", "ClusterRoleBinding")
	add("storage.k8s.io", true, "CSIStorageCapacity")
	add("storage.k8s.io", false, "CSIDriver", "CSINode", "StorageClass", "VolumeAttachment", "VolumeAttributesClass")
	add("apiextensions.k8s.io", false, "CustomResourceDefinition")
	add("apiregistration.k8s.io", false, "APIService")
	add("admissionregistration.k8s.io", false, "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
		"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding")
	add("scheduling.k8s.io", false, "PriorityClass")
	add("node.k8s.io", false, "RuntimeClass")
	add("certificates.k8s.io", false, "CertificateSigningRequest", "ClusterTrustBundle")
	add("flowcontrol.apiserver.k8s.io", false, "FlowSchema", "PriorityLevelConfiguration")
	add("resource.k8s.io", true, "ResourceClaim", "ResourceClaimTemplate")
	add("resource.k8s.io", false, "DeviceClass", "ResourceSlice")
	add("gateway.networking.x-k8s.io", true, "XListenerSet", "XBackendTrafficPolicy")
	add("argoproj.io", true, "Application", "ApplicationSet", "AppProject")
}
