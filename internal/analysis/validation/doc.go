// Package validation reports what the API server would reject, before the
// sync, with kube-apiserver's own code run offline (package
// internal/apiserver):
//
//   - validation.CustomResources: custom resources against their CRD
//     (rendered with the app or a context path, the cluster's from
//     --crd-dir, or the bundled Gateway API and Istio CRDs): unknown fields
//     (RG5005), the structural schema after defaulting (RG5001), the
//     x-kubernetes-validations CEL rules (RG5002);
//   - validation.BuiltinKinds: built-in kinds with k8s.io/kubernetes'
//     validation (RG5006, RG5005);
//   - validation.APIVersions: apiVersions the target cluster does not
//     serve (RG5003) or deprecates (RG5004).
//
// Findings point at the field's line. What cannot be checked is said so:
// RG5007 (no schema known), RG5008 (part of the validation could not run),
// RG5009 (valid only with Gateway API's experimental channel).
package validation

import "github.com/routeguard/routeguard/internal/analysis"

// Analyzers returns the package's analyzers.
func Analyzers() []analysis.Analyzer {
	return []analysis.Analyzer{APIVersions{}, BuiltinKinds{}, CustomResources{}}
}
