// Package version tells which routeguard is running: its release version
// and the VCS revision it was built from.
//
// Release builds (GoReleaser, `make image`, `make build`) set both with the
// linker:
//
//	-X github.com/routeguard/routeguard/internal/version.version=v1.2.3
//	-X github.com/routeguard/routeguard/internal/version.revision=<commit>
//
// Without them, Get reads the build information Go records in every binary:
// the module version of `go install .../cmd/routeguard@v1.2.3` (a
// pseudo-version names its commit), or the vcs.* settings of a `go build`
// in a git checkout. Both survive -trimpath.
package version
