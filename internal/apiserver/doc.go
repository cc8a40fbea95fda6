// Package apiserver validates objects the way kube-apiserver does before it
// stores them, offline and with kube-apiserver's own code:
//
//   - custom resources against their CustomResourceDefinition, with
//     k8s.io/apiextensions-apiserver: unknown fields pruned (and reported, as
//     strict field validation does), defaults applied, then the structural
//     schema (types, enums, patterns, formats, bounds, required, list types,
//     embedded metadata) and the x-kubernetes-validations CEL rules under the
//     API server's cost limits;
//   - built-in kinds with k8s.io/kubernetes' own validation (see builtin.go);
//   - API versions against what the target cluster serves.
//
// Compiled CRD versions (structural schema, schema validator, CEL programs)
// are built once, on first use, and cached: per CRD object, and for the
// bundled CRDs once per process.
package apiserver
