package ci

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/routeguard/routeguard/release/image"
)

// TestGoReleaserBuildsWhatTheImageBuilds: the release archives and the
// image are built the same way (static, -trimpath, the same linker flags),
// so the image can carry the archives' binaries and `make image` stands
// for the release. `goreleaser check` (make test-release) checks the rest
// of the file.
func TestGoReleaserBuildsWhatTheImageBuilds(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Builds []struct {
			ID      string   `yaml:"id"`
			Main    string   `yaml:"main"`
			Env     []string `yaml:"env"`
			Flags   []string `yaml:"flags"`
			Ldflags []string `yaml:"ldflags"`
			Goos    []string `yaml:"goos"`
			Goarch  []string `yaml:"goarch"`
		} `yaml:"builds"`
		Archives []struct {
			IDs []string `yaml:"ids"`
		} `yaml:"archives"`
		SBOMs []struct {
			Cmd string `yaml:"cmd"`
		} `yaml:"sboms"`
		Checksum struct {
			Algorithm string `yaml:"algorithm"`
		} `yaml:"checksum"`
	}
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	var mains []string
	for _, b := range c.Builds {
		mains = append(mains, b.Main)
		if want := image.LDFlags("v{{ .Version }}", "{{ .FullCommit }}"); strings.Join(b.Ldflags, " ") != want {
			t.Errorf("build %s: ldflags %q, want %q (release/image.LDFlags)", b.ID, b.Ldflags, want)
		}
		if !slices.Contains(b.Env, "CGO_ENABLED=0") || !slices.Contains(b.Flags, "-trimpath") || !slices.Contains(b.Flags, "-buildvcs=false") {
			t.Errorf("build %s: env %v flags %v, want a static -trimpath -buildvcs=false build", b.ID, b.Env, b.Flags)
		}
		slices.Sort(b.Goos)
		slices.Sort(b.Goarch)
		if !slices.Equal(b.Goos, []string{"darwin", "linux"}) || !slices.Equal(b.Goarch, []string{"amd64", "arm64"}) {
			t.Errorf("build %s: %v x %v", b.ID, b.Goos, b.Goarch)
		}
	}
	if !slices.Equal(mains, image.Commands) {
		t.Errorf("builds %v, want %v (release/image.Commands)", mains, image.Commands)
	}
	if len(c.Archives) != 1 || !slices.Equal(c.Archives[0].IDs, []string{"routeguard", "routeguard-istio"}) {
		t.Errorf("archives %+v: one archive must hold both binaries (routeguard finds routeguard-istio beside itself)", c.Archives)
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.SBOMs) != 1 || !strings.Contains(string(mk), "/cmd/"+c.SBOMs[0].Cmd+"@") {
		t.Errorf("sboms %+v: the Makefile must install the SBOM tool", c.SBOMs)
	}
	if c.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum algorithm %q: the action and the GitLab template check sha256", c.Checksum.Algorithm)
	}
}
