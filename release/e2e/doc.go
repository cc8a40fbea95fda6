// Package e2e checks what a release builds, built for real: the GoReleaser
// snapshot in dist/ (RELEASE_DIST), the sidecar image (IMAGE_LAYOUT, else
// built here), and `go install .../cmd/routeguard@VERSION` through a local
// module proxy. They cross-compile the whole dependency set for four
// platforms, so they run in `make test-release`, which builds dist/ and the
// image first.
package e2e
