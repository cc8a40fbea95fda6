// Package transform applies the traffic transforms of .routeguard.yaml to a
// rendered set: route weights stated once per service (VirtualService
// destinations by subset, HTTPRoute and GRPCRoute backendRefs by backend
// name), then Argo CD sync waves where none is set. Apply is the one entry
// point; `cmp generate`, `postrender` and `flux build` all call it after
// rendering and substitution and before analysis, so the transforms run in
// the same order everywhere.
package transform
