// Package version says which routeguard is running: the module version and
// VCS revision from the build information (set by `go install ...@vX`, by
// builds in a git checkout, and by -trimpath builds alike), overridden by
// release builds through -ldflags.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Set at release build time with
// -ldflags "-X github.com/routeguard/routeguard/internal/version.version=v1.2.3
// -X github.com/routeguard/routeguard/internal/version.revision=<sha>".
var (
	version  string
	revision string
)

// Info describes the running binary.
type Info struct {
	Version   string // "v1.2.3", "(devel)" for a build in a checkout, or "dev"
	Revision  string // VCS revision, "" when unknown
	Modified  bool   // built from a working tree with changes
	GoVersion string
	Platform  string // GOOS/GOARCH
}

// Get reads the build information of the running binary.
func Get() Info {
	return fromBuildInfo(debug.ReadBuildInfo())
}

func fromBuildInfo(bi *debug.BuildInfo, ok bool) Info {
	info := Info{Version: "dev", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			info.Version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Revision = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	if version != "" {
		info.Version = version
	}
	if revision != "" {
		info.Revision = revision
	}
	return info
}

// String is the one-line form `routeguard version` and `--version` print:
// "routeguard v1.2.3 (abc1234, modified) linux/amd64 go1.26.8".
func (i Info) String() string {
	rev := ""
	if i.Revision != "" {
		r := i.Revision
		if len(r) > 12 {
			r = r[:12]
		}
		if i.Modified {
			r += ", modified"
		}
		rev = " (" + r + ")"
	}
	return fmt.Sprintf("routeguard %s%s %s %s", i.Version, rev, i.Platform, i.GoVersion)
}
