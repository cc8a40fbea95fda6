package apiserver

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	apiservice "k8s.io/kubernetes/pkg/api/service"
	"k8s.io/kubernetes/pkg/apis/apps"
	appsv1 "k8s.io/kubernetes/pkg/apis/apps/v1"
	appsvalidation "k8s.io/kubernetes/pkg/apis/apps/validation"
	"k8s.io/kubernetes/pkg/apis/batch"
	batchv1 "k8s.io/kubernetes/pkg/apis/batch/v1"
	batchvalidation "k8s.io/kubernetes/pkg/apis/batch/validation"
	"k8s.io/kubernetes/pkg/apis/core"
	corev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	"k8s.io/kubernetes/pkg/apis/networking"
	networkingv1 "k8s.io/kubernetes/pkg/apis/networking/v1"
	networkingvalidation "k8s.io/kubernetes/pkg/apis/networking/validation"
	"k8s.io/kubernetes/pkg/apis/policy"
	policyv1 "k8s.io/kubernetes/pkg/apis/policy/v1"
	policyvalidation "k8s.io/kubernetes/pkg/apis/policy/validation"
	"k8s.io/kubernetes/pkg/apis/rbac"
	rbacv1 "k8s.io/kubernetes/pkg/apis/rbac/v1"
	rbacvalidation "k8s.io/kubernetes/pkg/apis/rbac/validation"
	"k8s.io/kubernetes/pkg/features"
)

// builtinInstallers add the internal and v1 types of each validated group
// to a scheme, as the groups' install packages do for kube-apiserver (those
// packages are not imported: they fill a global scheme at start-up, which
// every routeguard run would pay for).
var builtinInstallers = []func(*runtime.Scheme){
	func(s *runtime.Scheme) {
		utilruntime.Must(core.AddToScheme(s))
		utilruntime.Must(corev1.AddToScheme(s))
	},
	func(s *runtime.Scheme) {
		utilruntime.Must(apps.AddToScheme(s))
		utilruntime.Must(appsv1.AddToScheme(s))
	},
	func(s *runtime.Scheme) {
		utilruntime.Must(batch.AddToScheme(s))
		utilruntime.Must(batchv1.AddToScheme(s))
	},
	func(s *runtime.Scheme) {
		utilruntime.Must(networking.AddToScheme(s))
		utilruntime.Must(networkingv1.AddToScheme(s))
	},
	func(s *runtime.Scheme) {
		utilruntime.Must(policy.AddToScheme(s))
		utilruntime.Must(policyv1.AddToScheme(s))
	},
	func(s *runtime.Scheme) {
		utilruntime.Must(rbac.AddToScheme(s))
		utilruntime.Must(rbacv1.AddToScheme(s))
	},
}

func gvk(group, version, kind string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: group, Version: version, Kind: kind}
}

// builtinKinds mirrors, kind by kind, PrepareForCreate, Validate and the
// declarative validation configuration of the registry strategies in
// k8s.io/kubernetes/pkg/registry (v1.37.1; all of them opt in to
// declarative validation). Those
// packages are not imported themselves: with their storage and admission
// dependencies they would add ~40 MB to the binary, against ~12 MB for the
// validation packages they call. Kinds whose strategies mutate the object
// through unexported code (Pod, Job's generated selector, PVC data sources,
// HPA) are left out and not validated; docs/validation.md lists them.
// allocatedNodePort stands for a port the Service storage allocates from
// the node port range (30000-32767 by default) before validating.
const allocatedNodePort = 30000

func builtinKinds() []builtinKind {
	template := func(t *core.PodTemplateSpec) { podutil.DropDisabledTemplateFields(t, nil) }
	return []builtinKind{
		{declarative: noConfig, gvk: gvk("", "v1", "Service"), resource: "services", namespaced: true,
			prepare: func(o runtime.Object) {
				svc := o.(*core.Service)
				svc.Status = core.ServiceStatus{}
				// The service storage's normalizeClusterIPs, which runs
				// before validation on create: a clusterIP without
				// clusterIPs (every manifest written by hand, "None" for a
				// headless Service) is the one-element list.
				if svc.Spec.ClusterIP != "" && len(svc.Spec.ClusterIPs) == 0 {
					svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
				}
				// Its allocators, which also run before validation on
				// create (beginCreate): a LoadBalancer Service with
				// externalTrafficPolicy Local that names no health check
				// node port gets one from the node port range. (Node ports
				// and cluster IPs left out are valid as written.)
				if apiservice.NeedsHealthCheck(svc) && svc.Spec.HealthCheckNodePort == 0 {
					svc.Spec.HealthCheckNodePort = allocatedNodePort
				}
			},
			validate: func(_ context.Context, o runtime.Object) field.ErrorList {
				return corevalidation.ValidateServiceCreate(o.(*core.Service))
			}},
		{declarative: noConfig, gvk: gvk("", "v1", "ConfigMap"), resource: "configmaps", namespaced: true,
			prepare: func(runtime.Object) {},
			validate: func(_ context.Context, o runtime.Object) field.ErrorList {
				return corevalidation.ValidateConfigMap(o.(*core.ConfigMap))
			}},
		{declarative: noConfig, gvk: gvk("", "v1", "Secret"), resource: "secrets", namespaced: true,
			prepare: func(runtime.Object) {},
			validate: func(_ context.Context, o runtime.Object) field.ErrorList {
				return corevalidation.ValidateSecret(o.(*core.Secret))
			}},
		{declarative: noConfig, gvk: gvk("", "v1", "Namespace"), resource: "namespaces",
			prepare: func(o runtime.Object) {
				ns := o.(*core.Namespace)
				ns.Status = core.NamespaceStatus{Phase: core.NamespaceActive}
			},
			validate: func(_ context.Context, o runtime.Object) field.ErrorList {
				return corevalidation.ValidateNamespace(o.(*core.Namespace))
			}},
		{declarative: noConfig, gvk: gvk("", "v1", "ServiceAccount"), resource: "serviceaccounts", namespaced: true,
			prepare: func(runtime.Object) {},
			validate: func(_ context.Context, o runtime.Object) field.ErrorList {
				return corevalidation.ValidateServiceAccount(o.(*core.ServiceAccount))
			}},
		{declarative: noConfig, gvk: gvk("apps", "v1", "Deployment"), resource: "deployments", namespaced: true,
			prepare: func(o runtime.Object) {
				d := o.(*apps.Deployment)
				d.Status, d.Generation = apps.DeploymentStatus{}, 1
				template(&d.Spec.Template)
			},
			validate: func(_ context.Context, o runtime.Object) field.ErrorList {
				d := o.(*apps.Deployment)
				return appsvalidation.ValidateDeployment(d, podutil.GetValidationOptionsFromPodTemplate(&d.Spec.Template, nil))
			}},
		{declarative: noConfig, gvk: gvk("apps", "v1", "StatefulSet"), resource: "statefulsets", namespaced: true,
			prepare: func(o runtime.Object) {
				s := o.(*apps.StatefulSet)
				s.Status, s.Generation = apps.StatefulSetStatus{}, 1
				template(&s.Spec.Template)
			},
			validate: func(_ context.Context, o runtime.Object) field.ErrorList {
				s := o.(*apps.StatefulSet)
				setOpts := appsvalidation.StatefulSetValidationOptions{
					AllowStatefulSetRecreateStrategy: utilfeature.DefaultFeatureGate.Enabled(features.StatefulSetRecreateStrategy)}
				return appsvalidation.ValidateStatefulSet(s, setOpts, podutil.GetValidationOptionsFromPodTemplate(&s.Spec.Template, nil))
			}},
		{declarative: noConfig, gvk: gvk("apps", "v1", "DaemonSet"), resource: "daemonsets", namespaced: true,
			prepare: func(o runtime.Object) {
				d := o.(*apps.DaemonSet)
				d.Status, d.Generation = apps.DaemonSetStatus{}, 1
				if d.Spec.TemplateGeneration < 1 {
					d.Spec.TemplateGeneration = 1
				}
				template(&d.Spec.Template)
			},
			validate: func(_ context.Context, o runtime.Object) field.ErrorList {
				d := o.(*apps.DaemonSet)
				return appsvalidation.ValidateDaemonSet(d, podutil.GetValidationOptionsFromPodTemplate(&d.Spec.Template, nil))
			}},
		{declarative: noConfig, gvk: gvk("apps", "v1", "ReplicaSet"), resource: "replicasets", namespaced: true,
			prepare: func(o runtime.Object) {
				r := o.(*apps.ReplicaSet)
				r.Status, r.Generation = apps.ReplicaSetStatus{}, 1
				template(&r.Spec.Template)
			},
			validate: func(_ context.Context, o runtime.Object) field.ErrorList {
				r := o.(*apps.ReplicaSet)
				return appsvalidation.ValidateReplicaSet(r, podutil.GetValidationOptionsFromPodTemplate(&r.Spec.Template, nil))
			}},
		{gvk: gvk("batch", "v1", "CronJob"), resource: "cronjobs", namespaced: true,
			declarative: func() rest.DeclarativeValidationConfig {
				return rest.DeclarativeValidationConfig{Options: map[string]bool{
					string(features.WorkloadWithJob): utilfeature.DefaultFeatureGate.Enabled(features.WorkloadWithJob)}}
			},
			prepare: func(o runtime.Object) {
				c := o.(*batch.CronJob)
				c.Status, c.Generation = batch.CronJobStatus{}, 1
				template(&c.Spec.JobTemplate.Spec.Template)
			},
			validate: func(_ context.Context, o runtime.Object) field.ErrorList {
				c := o.(*batch.CronJob)
				return batchvalidation.ValidateCronJobCreate(c, podutil.GetValidationOptionsFromPodTemplate(&c.Spec.JobTemplate.Spec.Template, nil))
			}},
		{declarative: noConfig, gvk: gvk("networking.k8s.io", "v1", "Ingress"), resource: "ingresses", namespaced: true,
			prepare: func(o runtime.Object) {
				i := o.(*networking.Ingress)
				i.Status, i.Generation = networking.IngressStatus{}, 1
			},
			validate: func(_ context.Context, o runtime.Object) field.ErrorList {
				return networkingvalidation.ValidateIngressCreate(o.(*networking.Ingress))
			}},
		{declarative: noConfig, gvk: gvk("networking.k8s.io", "v1", "IngressClass"), resource: "ingressclasses",
			prepare: func(o runtime.Object) { o.(*networking.IngressClass).Generation = 1 },
			validate: func(_ context.Context, o runtime.Object) field.ErrorList {
				return networkingvalidation.ValidateIngressClass(o.(*networking.IngressClass))
			}},
		{declarative: noConfig, gvk: gvk("networking.k8s.io", "v1", "NetworkPolicy"), resource: "networkpolicies", namespaced: true,
			prepare: func(o runtime.Object) { o.(*networking.NetworkPolicy).Generation = 1 },
			validate: func(_ context.Context, o runtime.Object) field.ErrorList {
				np := o.(*networking.NetworkPolicy)
				return networkingvalidation.ValidateNetworkPolicy(np, networkingvalidation.ValidationOptionsForNetworking(np, nil))
			}},
		{declarative: noConfig, gvk: gvk("policy", "v1", "PodDisruptionBudget"), resource: "poddisruptionbudgets", namespaced: true,
			prepare: func(o runtime.Object) {
				p := o.(*policy.PodDisruptionBudget)
				p.Status, p.Generation = policy.PodDisruptionBudgetStatus{}, 1
			},
			validate: func(_ context.Context, o runtime.Object) field.ErrorList {
				return policyvalidation.ValidatePodDisruptionBudget(o.(*policy.PodDisruptionBudget), policyvalidation.PodDisruptionBudgetValidationOptions{})
			}},
		{declarative: noConfig, gvk: gvk("rbac.authorization.k8s.io", "v1", "Role"), resource: "roles", namespaced: true,
			prepare: func(runtime.Object) {},
			validate: func(_ context.Context, o runtime.Object) field.ErrorList {
				return rbacvalidation.ValidateRole(o.(*rbac.Role))
			}},
		{gvk: gvk("rbac.authorization.k8s.io", "v1", "RoleBinding"), resource: "rolebindings", namespaced: true,
			// RoleRef is immutable: declarative short-circuit errors match
			// the handwritten ones of its fields.
			declarative: func() rest.DeclarativeValidationConfig {
				return rest.DeclarativeValidationConfig{ShortCircuitMismatch: true}
			},
			prepare: func(runtime.Object) {},
			validate: func(_ context.Context, o runtime.Object) field.ErrorList {
				return rbacvalidation.ValidateRoleBinding(o.(*rbac.RoleBinding))
			}},
		{declarative: noConfig, gvk: gvk("rbac.authorization.k8s.io", "v1", "ClusterRole"), resource: "clusterroles",
			prepare: func(runtime.Object) {},
			validate: func(_ context.Context, o runtime.Object) field.ErrorList {
				return rbacvalidation.ValidateClusterRole(o.(*rbac.ClusterRole), rbacvalidation.ClusterRoleValidationOptions{})
			}},
		{gvk: gvk("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding"), resource: "clusterrolebindings",
			// RoleRef is immutable: declarative short-circuit errors match
			// the handwritten ones of its fields.
			declarative: func() rest.DeclarativeValidationConfig {
				return rest.DeclarativeValidationConfig{ShortCircuitMismatch: true}
			},
			prepare: func(runtime.Object) {},
			validate: func(_ context.Context, o runtime.Object) field.ErrorList {
				return rbacvalidation.ValidateClusterRoleBinding(o.(*rbac.ClusterRoleBinding))
			}},
	}
}
