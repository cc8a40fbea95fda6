package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"golang.org/x/mod/module"
)

// Set by the linker (see the package documentation); empty otherwise.
var (
	version  string
	revision string
)

// Dev is the version of a build that carries no version: a `go build` or
// `go run` without VCS stamping (-buildvcs=false) and without -X.
const Dev = "dev"

// Info describes the running build.
type Info struct {
	// Version is a release ("v1.2.3"), a Go pseudo-version, or Dev.
	Version string
	// Revision is the VCS commit the binary was built from; "" when the
	// build does not say. From a pseudo-version it is the 12-digit prefix
	// Go keeps.
	Revision string
	// Modified is true for a build from a work tree with uncommitted
	// changes (Go's vcs.modified).
	Modified bool
	// GoVersion is the toolchain that built the binary.
	GoVersion string
	// Platform is GOOS/GOARCH.
	Platform string
}

// Get returns the Info of the running binary.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	info := Resolve(version, revision, bi)
	info.Platform = runtime.GOOS + "/" + runtime.GOARCH
	if info.GoVersion == "" {
		info.GoVersion = runtime.Version()
	}
	return info
}

// Resolve combines the linker's values (ldVersion, ldRevision; "" when not
// set) with Go's build information (nil when the binary has none). The
// linker wins: it is how a release states its version.
func Resolve(ldVersion, ldRevision string, bi *debug.BuildInfo) Info {
	var info Info
	var vcsRevision string
	if bi != nil {
		info.GoVersion = bi.GoVersion
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			info.Version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				vcsRevision = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	switch {
	case ldRevision != "":
		info.Revision = ldRevision
		info.Modified = false // the release process says which commit it built
	case vcsRevision != "":
		info.Revision = vcsRevision
	case info.Version != "" && module.IsPseudoVersion(info.Version):
		if rev, err := module.PseudoVersionRev(info.Version); err == nil {
			info.Revision = rev
		}
	}
	if ldVersion != "" {
		info.Version = ldVersion
	}
	if info.Version == "" {
		info.Version = Dev
	}
	return info
}

// String is the line `routeguard version` prints, e.g.
// "v1.2.3 (revision 0123abc..., modified) linux/amd64 go1.26.8".
func (i Info) String() string {
	var b strings.Builder
	b.WriteString(i.Version)
	var notes []string
	if i.Revision != "" {
		notes = append(notes, "revision "+i.Revision)
	}
	if i.Modified {
		notes = append(notes, "modified")
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(notes, ", "))
	}
	for _, s := range []string{i.Platform, i.GoVersion} {
		if s != "" {
			b.WriteString(" " + s)
		}
	}
	return b.String()
}
