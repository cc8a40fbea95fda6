// Package gatewayapi holds the Gateway API analyzers: route attachment
// (parentRefs, to Gateways and ListenerSets), backends (backendRefs and
// ReferenceGrants), Gateway and ListenerSet listeners, ListenerSet
// attachment, TLS references (certificates, CA bundles, BackendTLSPolicy),
// parametersRefs, and conflicts between routes. They read objects as plain maps,
// so malformed fields are skipped here and reported by the schema analyzer.
package gatewayapi

import "github.com/routeguard/routeguard/internal/analysis"

// Group is the Gateway API group.
const Group = "gateway.networking.k8s.io"

// Analyzers returns the package's analyzers.
func Analyzers() []analysis.Analyzer {
	return []analysis.Analyzer{BackendRefs{}, BackendTLSPolicies{}, GatewayTLS{}, ListenerSets{}, Listeners{},
		ParametersRefs{}, ParentRefs{}, RouteConflicts{}}
}
