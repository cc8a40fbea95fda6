// Package appset compares routeguard's ApplicationSet expansion
// (internal/argocd/appset, routeguard's own code) with Argo CD's: the
// applicationset controller's own GenerateApplications, generators (list,
// git directories and files, matrix, merge, clusters) and renderer, on the
// cases of testdata/. Argo CD's Applications are written to
// testdata/<case>.applications.yaml (go test ./appset -update); the main
// module's internal/argocd/appset tests expand the same cases and compare
// object by object, so the two modules (which cannot share a build list)
// meet in these files.
package appset
