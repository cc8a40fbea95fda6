// Package synth generates synthetic GitOps routing repositories for
// benchmarks: N services spread over namespaces, each with a Service, an
// HTTPRoute, a VirtualService, a DestinationRule with blue/green subsets and
// an Ingress (and, optionally, blue and green Deployments), one Namespace
// and one Gateway API Gateway per namespace, and K services whose HTTPRoute,
// VirtualService and Ingress each point at a Service that does not exist
// (3K injected errors). The output is a pure function of the options.
package synth
