// Package flux is the e2e control plane's Flux tool module: it builds
// source-controller and kustomize-controller v1.9 from their own modules.
package flux
