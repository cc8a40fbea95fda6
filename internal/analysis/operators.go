package analysis

import (
	"strings"

	"github.com/routeguard/routeguard/internal/manifest"
)

// Operators make Services that no manifest holds: the VictoriaMetrics
// operator a "vmagent-<name>" Service for a VMAgent, CloudNativePG
// "<name>-rw" for a Cluster, Strimzi "<name>-kafka-bootstrap" for a Kafka,
// ECK "<name>-es-http". A route to one of them is not dangling:
// routeguard cannot see what the operator will create. A Service is taken
// as possibly made by an operator when a custom resource in its namespace
// has its name, or a dash-separated part of it, as its name.
//
// Custom resources of kinds that make no Services are left out (GitOps,
// secrets, certificates, routing, policy), so a typo next to a Flux
// HelmRelease of the same name is still dangling.

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
		group == "external-secrets.io", group == "bitnami.com", group == "onepassword.com",
		group == "cert-manager.io", group == "acme.cert-manager.io",
		group == "kustomize.config.k8s.io", group == "kyverno.io", group == "policy.networking.k8s.io":
		return true
	}
	return false
}

// operatorOwner returns a custom resource, rendered or among the context
// objects in k's namespace, whose operator may make the object k (a
// Service; see above).
func (c *Context) operatorOwner(k manifest.Key) (*manifest.Object, bool) {
	if !operatorMadeKinds[manifest.GroupKind{Group: k.Group, Kind: k.Kind}] {
		return nil, false
	}
	byNS := c.Memo("analysis.operatorOwners", func() any {
		out := map[string][]*manifest.Object{}
		for _, s := range []*manifest.Set{c.set, c.contextSet} {
			for _, o := range s.Objects() {
				if makesNoServices(o.Group()) || len(o.Name) < 2 {
					continue
				}
				ns := c.Namespace(o)
				out[ns] = append(out[ns], o)
			}
		}
		return out
	}).(map[string][]*manifest.Object)
	for _, o := range byNS[k.Namespace] {
		n := o.Name
		if k.Name == n || strings.HasPrefix(k.Name, n+"-") || strings.HasSuffix(k.Name, "-"+n) || strings.Contains(k.Name, "-"+n+"-") {
			return o, true
		}
	}
	return nil, false
}
