// Command team-hosts is an example routeguard plugin: each namespace (a
// team) may only claim the hostnames its config allows, across HTTPRoute,
// GRPCRoute, TLSRoute, Ingress, Gateway API Gateway listeners, and Istio
// VirtualService and Gateway servers. See README.md.
package main

import "github.com/routeguard/routeguard/plugins/sdk"

func main() { sdk.Serve(teamHosts{}) }
