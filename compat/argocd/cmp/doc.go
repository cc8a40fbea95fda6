// Package cmpcompat tests routeguard's Config Management Plugin with Argo
// CD's own code: argocd-cmp-server built from Argo CD's source, driven by
// the repo-server's GenerateManifests, plugin discovery and repository
// streaming (util/cmp), with the plugin.yaml routeguard ships.
//
// Run alone (from compat/argocd): ROUTEGUARD_BIN=/path/to/routeguard go test ./cmp
// Without ROUTEGUARD_BIN the tests build routeguard from the main module.
package cmpcompat
