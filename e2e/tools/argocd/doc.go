// Package argocd is the e2e control plane's Argo CD tool module: it builds
// Argo CD v3.5's own multi-call binary (github.com/argoproj/argo-cd/v3/cmd),
// which runs as argocd-application-controller, argocd-repo-server,
// argocd-cmp-server or argocd-notifications by the name it is started as.
package argocd
