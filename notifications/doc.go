// Package notifications holds routeguard's notification bundles: Argo CD
// triggers and Slack templates for argocd-notifications-cm (as a Kustomize
// patch or as values of the argo-cd Helm chart) and Flux notification-controller
// Provider and Alert manifests. The sources are the YAML files beside this
// package (argocd/, flux/), embedded at build time; the built bundles are also
// committed under dist/ so that Argo CD's own code can be tested on the exact
// bytes users apply (see compat/argocd/notifications).
package notifications
