// Package health loads routeguard's health checks for routes and gateways
// (lua-health/), evaluates them the way the reconcilers do — the Lua checks
// in a VM set up like Argo CD's application controller, the CEL twins with
// fluxcd/pkg/runtime/cel exactly as kustomize-controller evaluates
// healthCheckExprs — and builds the bundles that install them (argocd-cm
// keys as a Kustomize patch or Helm values, Flux healthCheckExprs).
package health
