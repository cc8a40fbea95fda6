package analysis

import (
	"strings"

	"github.com/routeguard/routeguard/internal/manifest"
)

// Operators make Services that no manifest holds: the VictoriaMetrics
// operator a "vmagent-<name>" Service for a VMAgent, CloudNativePG
// "<name>-rw" for a Cluster, Strimzi "<name>-kafka-bootstrap" for a Kafka,
// ECK "<name>-es-http", flux-operator's FluxInstance Flux's own
// (webhook-receiver). A route to one of them is not dangling: routeguard
// cannot see what the operator will create. Any custom resource of a kind
// routeguard does not model is taken as a possible maker of Services in its
// namespace; one whose name is the Service's, or a dash-separated part of
// it, is named first.
//
// Custom resources of kinds that make no Services are left out (GitOps,
// secrets, certificates, routing, policy, monitoring rules, autoscaling,
// backups), and so are those routeguard builds itself (Flux's, Argo CD's,
// flux-operator's ResourceSets): a typo next to a Flux HelmRelease of the
// same name is still dangling.

// operatorMadeKinds are the kinds an absent object may be made by an
// operator of.
var operatorMadeKinds = map[manifest.GroupKind]bool{{Kind: "Service"}: true}

// makesNoServices are the API groups whose resources make no Service.
func makesNoServices(group string) bool {
	switch {
	case group == "" || !strings.Contains(group, "."), // core, apps, batch, policy, autoscaling
		strings.HasSuffix(group, ".k8s.io"), // Kubernetes' own, Gateway API
		strings.HasSuffix(group, ".istio.io"),
		strings.HasSuffix(group, ".toolkit.fluxcd.io"), group == "argoproj.io",
		group == "external-secrets.io", group == "generators.external-secrets.io", group == "bitnami.com", group == "onepassword.com",
		group == "secrets.infisical.com", group == "secrets.hashicorp.com", group == "secretgenerator.mittwald.de",
		group == "cert-manager.io", group == "acme.cert-manager.io", group == "trust.cert-manager.io",
		group == "kustomize.config.k8s.io", group == "kyverno.io", group == "policy.networking.k8s.io",
		group == "snapshot.storage.k8s.io", group == "volsync.backube", group == "velero.io",
		group == "keda.sh", group == "reloader.stakater.com", group == "upgrade.cattle.io",
		group == "notification.toolkit.fluxcd.io", group == "image.toolkit.fluxcd.io":
		return true
	}
	return false
}

// makesNoService lists kinds of groups that have makers among them (an
// operator's Prometheus makes a Service, its ServiceMonitor none).
var makesNoService = map[manifest.GroupKind]bool{
	{Group: "monitoring.coreos.com", Kind: "ServiceMonitor"}: true, {Group: "monitoring.coreos.com", Kind: "PodMonitor"}: true,
	{Group: "monitoring.coreos.com", Kind: "PrometheusRule"}: true, {Group: "monitoring.coreos.com", Kind: "Probe"}: true,
	{Group: "monitoring.coreos.com", Kind: "ScrapeConfig"}: true, {Group: "monitoring.coreos.com", Kind: "AlertmanagerConfig"}: true,
	{Group: "operator.victoriametrics.com", Kind: "VMServiceScrape"}: true, {Group: "operator.victoriametrics.com", Kind: "VMPodScrape"}: true,
	{Group: "operator.victoriametrics.com", Kind: "VMRule"}: true, {Group: "operator.victoriametrics.com", Kind: "VMProbe"}: true,
	{Group: "postgresql.cnpg.io", Kind: "ScheduledBackup"}: true, {Group: "postgresql.cnpg.io", Kind: "Backup"}: true,
	{Group: "postgresql.cnpg.io", Kind: "Database"}: true, {Group: "postgresql.cnpg.io", Kind: "ImageCatalog"}: true,
	{Group: "gateway.envoyproxy.io", Kind: "SecurityPolicy"}: true, {Group: "gateway.envoyproxy.io", Kind: "ClientTrafficPolicy"}: true,
	{Group: "gateway.envoyproxy.io", Kind: "BackendTrafficPolicy"}: true, {Group: "gateway.envoyproxy.io", Kind: "EnvoyExtensionPolicy"}: true,
	{Group: "gateway.envoyproxy.io", Kind: "EnvoyPatchPolicy"}: true, {Group: "gateway.envoyproxy.io", Kind: "HTTPRouteFilter"}: true,
	{Group: "gateway.envoyproxy.io", Kind: "Backend"}: true,
	{Group: "cilium.io", Kind: "CiliumNetworkPolicy"}: true, {Group: "cilium.io", Kind: "CiliumClusterwideNetworkPolicy"}: true,
	{Group: "cilium.io", Kind: "CiliumLoadBalancerIPPool"}: true, {Group: "cilium.io", Kind: "CiliumL2AnnouncementPolicy"}: true,
	{Group: "traefik.io", Kind: "Middleware"}: true, {Group: "traefik.io", Kind: "MiddlewareTCP"}: true,
	{Group: "traefik.io", Kind: "TLSOption"}: true, {Group: "traefik.io", Kind: "ServersTransport"}: true,
	{Group: "traefik.io", Kind: "IngressRoute"}: true, {Group: "traefik.io", Kind: "IngressRouteTCP"}: true,
	{Group: "fluxcd.controlplane.io", Kind: "ResourceSet"}: true, {Group: "fluxcd.controlplane.io", Kind: "ResourceSetInputProvider"}: true,
	{Group: "fluxcd.controlplane.io", Kind: "FluxReport"}: true,
	{Group: "flagger.app", Kind: "MetricTemplate"}:        true, {Group: "flagger.app", Kind: "AlertProvider"}: true,
}

// maker reports whether a custom resource may make Services.
func maker(o *manifest.Object) bool {
	return !makesNoServices(o.Group()) && !makesNoService[o.GroupKind()]
}

// operatorOwner returns the custom resource, rendered or among the context
// objects in k's namespace, whose operator may make the object k (a
// Service; see above): one named like k first (named), else the first of
// them; others counts the rest.
func (c *Context) operatorOwner(k manifest.Key) (owner *manifest.Object, named bool, others int, ok bool) {
	if !operatorMadeKinds[manifest.GroupKind{Group: k.Group, Kind: k.Kind}] {
		return nil, false, 0, false
	}
	byNS := c.Memo("analysis.operatorOwners", func() any {
		out := map[string][]*manifest.Object{}
		for _, s := range []*manifest.Set{c.set, c.contextSet} {
			for _, o := range s.Objects() {
				if !maker(o) || len(o.Name) < 2 {
					continue
				}
				ns := c.Namespace(o)
				out[ns] = append(out[ns], o)
			}
		}
		return out
	}).(map[string][]*manifest.Object)
	cands := byNS[k.Namespace]
	if len(cands) == 0 {
		return nil, false, 0, false
	}
	for _, o := range cands {
		if namedAfter(k.Name, o.Name) {
			return o, true, len(cands) - 1, true
		}
	}
	return cands[0], false, len(cands) - 1, true
}

// namedAfter reports whether name is base or has it as a dash-separated
// part (release "jellyfin": "jellyfin", "jellyfin-web", "app-jellyfin").
func namedAfter(name, base string) bool {
	return base != "" && (name == base || strings.HasPrefix(name, base+"-") || strings.HasSuffix(name, "-"+base) || strings.Contains(name, "-"+base+"-"))
}
