//go:build fluxtransforms

package e2e

// With -tags fluxtransforms the Flux scenario also fails on the known
// difference: `routeguard flux build` applies the traffic transforms of
// .routeguard.yaml (transforms.weights), which kustomize-controller never
// applies (examples/flux/apps/reviews-gateway: built 80/20, live 100/0).
// Reported to be decided; until then the default run logs it.
const strictTransforms = true
