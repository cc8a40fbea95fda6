// Package argocdcmp is routeguard's side of Argo CD's Config Management Plugin
// (CMP) contract: the environment argocd-cmp-server gives the plugin's
// commands (ARGOCD_APP_*, KUBE_*, ARGOCD_ENV_* plugin env, parameters as
// ARGOCD_APP_PARAMETERS JSON and PARAM_* variables), the repository root of
// the unpacked copy, the dynamic parameter announcement, discovery, the
// stderr report Argo CD shows as the app's ComparisonError, and the opt-in
// report object that carries warnings into the app's resource tree.
//
// The package reads only the variables it names; it never lists or prints
// the rest of the environment, where Argo CD may have put git credentials.
package argocdcmp
