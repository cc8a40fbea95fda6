// Package routemap builds the route table of a set of rendered objects: per
// Gateway listener, Ingress class, Istio gateway and the mesh, which hosts
// and matches go to which backends with which weights; where routes attach;
// the TLS hosts and their certificates; the ReferenceGrants. Compare tells
// two maps apart (routeguard diff); Mermaid and SVG draw one (routeguard
// map) or the difference of two.
package routemap
