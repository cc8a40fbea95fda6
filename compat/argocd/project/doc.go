// Package project compares routeguard's AppProject verdicts with Argo CD
// v3.5.7's own, one by one: the parity table
// (internal/argocd/project/testdata/parity.yaml) becomes a repository
// that `routeguard argocd analyze` checks, and every Application and
// object of it goes through Argo CD's AppProject methods in the
// controller's order.
//
// Run alone (from compat/argocd): ROUTEGUARD_BIN=/path/to/routeguard go test ./project
// Without ROUTEGUARD_BIN the test builds routeguard from the main module.
package project
