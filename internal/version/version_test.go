package version

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"no build info", nil, false, "routeguard dev "},
		{"go install of a tag", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, true, "routeguard v1.4.0 "},
		{"checkout build with VCS stamp", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}, true, "routeguard dev (0123456789ab, modified) "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fromBuildInfo(tc.bi, tc.ok).String()
			if !strings.HasPrefix(got, tc.want) {
				t.Fatalf("got %q, want prefix %q", got, tc.want)
			}
		})
	}
	version, revision = "v9.9.9", "feedface"
	defer func() { version, revision = "", "" }()
	if got := fromBuildInfo(&debug.BuildInfo{Main: debug.Module{Version: "v1.0.0"}}, true).String(); !strings.HasPrefix(got, "routeguard v9.9.9 (feedface) ") {
		t.Fatalf("ldflags must win: %q", got)
	}
}
