package version

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/test/cachekey"
)

func TestResolve(t *testing.T) {
	const commit = "0123456789abcdef0123456789abcdef01234567"
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	tests := []struct {
		name                  string
		ldVersion, ldRevision string
		bi                    *debug.BuildInfo
		wantVersion, wantRev  string
		wantModified          bool
		wantString            string
	}{
		{name: "no build info", wantVersion: Dev, wantString: "dev"},
		{name: "go build without vcs stamping",
			bi:          &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/routeguard/routeguard", Version: "(devel)"}},
			wantVersion: Dev, wantString: "dev go1.26.8"},
		{name: "go install at a release",
			bi:          &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.4.0"}},
			wantVersion: "v1.4.0", wantString: "v1.4.0 go1.26.8"},
		{name: "go install at a commit: the pseudo-version names it",
			bi:          &debug.BuildInfo{Main: debug.Module{Version: "v1.4.1-0.20261101120000-abcdef012345"}},
			wantVersion: "v1.4.1-0.20261101120000-abcdef012345", wantRev: "abcdef012345",
			wantString: "v1.4.1-0.20261101120000-abcdef012345 (revision abcdef012345)"},
		{name: "go build in a dirty git checkout",
			bi:          &debug.BuildInfo{Main: debug.Module{Version: "v1.4.1-0.20261101120000-0123456789ab+dirty"}, Settings: vcs(commit, "true")},
			wantVersion: "v1.4.1-0.20261101120000-0123456789ab+dirty", wantRev: commit, wantModified: true,
			wantString: "v1.4.1-0.20261101120000-0123456789ab+dirty (revision " + commit + ", modified)"},
		{name: "linker flags win over build info",
			ldVersion: "v2.0.0", ldRevision: commit,
			bi:          &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("ffffffffffffffffffffffffffffffffffffffff", "true")},
			wantVersion: "v2.0.0", wantRev: commit, wantString: "v2.0.0 (revision " + commit + ")"},
		{name: "linker version alone keeps the vcs revision",
			ldVersion:   "v2.0.0-snapshot",
			bi:          &debug.BuildInfo{Settings: vcs(commit, "false")},
			wantVersion: "v2.0.0-snapshot", wantRev: commit, wantString: "v2.0.0-snapshot (revision " + commit + ")"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Resolve(tt.ldVersion, tt.ldRevision, tt.bi)
			if got.Version != tt.wantVersion || got.Revision != tt.wantRev || got.Modified != tt.wantModified {
				t.Errorf("Resolve = %+v, want version %q revision %q modified %v", got, tt.wantVersion, tt.wantRev, tt.wantModified)
			}
			if s := got.String(); s != tt.wantString {
				t.Errorf("String() = %q, want %q", s, tt.wantString)
			}
		})
	}
}

func TestGetReportsPlatform(t *testing.T) {
	got := Get()
	if want := runtime.GOOS + "/" + runtime.GOARCH; got.Platform != want {
		t.Errorf("Platform = %q, want %q", got.Platform, want)
	}
	if got.GoVersion != runtime.Version() {
		t.Errorf("GoVersion = %q, want %q", got.GoVersion, runtime.Version())
	}
}

// TestLinkerFlags builds a program with the flags GoReleaser and `make
// image` pass: a misspelt -X symbol is silently ignored by the linker, so
// only a built binary shows that the names are right.
func TestLinkerFlags(t *testing.T) {
	const pkg = "github.com/routeguard/routeguard/internal/version"
	tests := []struct {
		name    string
		ldflags string
		want    string
	}{
		{"release", "-X " + pkg + ".version=v9.8.7 -X " + pkg + ".revision=cafe0123", "v9.8.7 (revision cafe0123) "},
		{"none", "", "dev "},
	}
	cachekey.Tree("testdata/printversion") // the go build child reads it
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "printversion")
			cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags", tt.ldflags, "-o", bin, "./testdata/printversion")
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("go build: %v\n%s", err, out)
			}
			out, err := exec.Command(bin).Output()
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want + runtime.GOOS + "/" + runtime.GOARCH + " " + runtime.Version() + "\n"
			if string(out) != want {
				t.Errorf("printversion = %q, want %q", out, want)
			}
			if strings.Contains(string(out), "(devel)") {
				t.Error("(devel) leaked into the version")
			}
		})
	}
}
