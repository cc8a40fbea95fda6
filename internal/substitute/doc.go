// Package substitute applies Flux's postBuild variable substitution to a set
// of rendered objects. It calls kustomize-controller's own entry point,
// fluxcd/pkg/kustomize SubstituteVariables (which runs fluxcd/pkg/envsubst),
// so the syntax, strict mode, the kustomize.toolkit.fluxcd.io/substitute
// opt-out, the precedence of substitute over substituteFrom and the newline
// stripping are Flux's, not a re-implementation. The package does no I/O:
// ConfigMaps and Secrets named by substituteFrom come from a Sources value
// the caller fills (from the repository, or from command-line variables).
package substitute
