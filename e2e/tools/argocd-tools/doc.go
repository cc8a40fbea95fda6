// Package argocdtools builds the helm and kustomize binaries Argo CD's
// repo-server runs, for the e2e coexistence scenario (Argo CD's own Helm and
// Kustomize render apps that routeguard's plugin must leave alone).
package argocdtools
