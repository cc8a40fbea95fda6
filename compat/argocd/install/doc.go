// Package install tests routeguard's sidecar install (the Kustomize component
// cmp/ of the main repository) on Argo CD's own install manifests
// (manifests/install.yaml of the argo-cd module this module builds against),
// built with Kustomize's SDK as `kustomize build` would. It holds tests only.
package install
