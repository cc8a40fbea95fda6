//go:build !fluxtransforms

package e2e

// See flux_transforms_strict_test.go.
const strictTransforms = false
