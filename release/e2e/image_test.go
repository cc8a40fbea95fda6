package e2e

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/release/image"
)

// TestImage inspects the image `make image` wrote (IMAGE_LAYOUT; built here
// when unset) with its real binaries, then builds it again from the same
// commit, version and time: the digest must be the same.
func TestImage(t *testing.T) {
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	build := func(version, revision string, created int64, out string) {
		t.Helper()
		bins, err := image.GoBuild(context.Background(), image.BuildOptions{Source: abs, Out: t.TempDir(), Version: version, Revision: revision})
		if err != nil {
			t.Fatal(err)
		}
		ct := unix(created)
		idx, err := image.Assemble(bins, image.AssembleOptions{Base: image.Local(ct), Created: ct, Version: version, Revision: revision, WorkDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if err := image.WriteLayout(out, idx, "ghcr.io/routeguard/routeguard-cmp:"+strings.ReplaceAll(version, "+", "-")); err != nil {
			t.Fatal(err)
		}
	}
	layout := os.Getenv("IMAGE_LAYOUT")
	if layout == "" {
		layout = filepath.Join(t.TempDir(), "oci")
		build("v0.0.0-e2e", "0123456789abcdef0123456789abcdef01234567", 1700000000, layout)
	}
	s, err := image.Inspect(layout)
	if err != nil {
		t.Fatal(err)
	}
	version, revision := s.Annotations["org.opencontainers.image.version"], s.Annotations["org.opencontainers.image.revision"]
	if version == "" || revision == "" {
		t.Fatalf("index annotations %v name no version and revision", s.Annotations)
	}
	if len(s.Platforms) != 2 {
		t.Fatalf("%d platforms, want linux/amd64 and linux/arm64", len(s.Platforms))
	}
	var created int64
	for _, p := range s.Platforms {
		t.Run(p.Platform.String(), func(t *testing.T) {
			c := p.Config.Config
			if c.User != "999:999" || strings.Join(c.Entrypoint, " ") != "/var/run/argocd/argocd-cmp-server" {
				t.Errorf("user %q, entrypoint %q", c.User, c.Entrypoint)
			}
			created = p.Config.Created.Unix()
			dir := t.TempDir()
			for _, name := range []string{"routeguard", "routeguard-istio"} {
				f, ok := p.Files["/usr/local/bin/"+name]
				if !ok || f.Mode != 0o755 || f.Size < 10<<20 {
					t.Errorf("/usr/local/bin/%s: %+v, %v", name, f, ok)
					continue
				}
				bin := filepath.Join(dir, name)
				if err := p.ExtractFile("/usr/local/bin/"+name, bin); err != nil {
					t.Fatal(err)
				}
				checkBinary(t, bin, p.Platform.OS, p.Platform.Architecture)
			}
			if p.Platform.Architecture == runtime.GOARCH {
				want := "routeguard " + version + " (revision " + revision + ") linux/" + runtime.GOARCH + " "
				if got := versionLine(t, filepath.Join(dir, "routeguard")); !strings.HasPrefix(got, want) {
					t.Errorf("version = %q, want %q...", got, want)
				}
			}
		})
	}
	again := filepath.Join(t.TempDir(), "oci")
	build(version, revision, created, again)
	s2, err := image.Inspect(again)
	if err != nil {
		t.Fatal(err)
	}
	if s2.Digest != s.Digest {
		t.Errorf("built twice from the same commit: %s and %s", s.Digest, s2.Digest)
		for i := range s.Platforms {
			t.Logf("%s: layers %v and %v", s.Platforms[i].Platform, s.Platforms[i].Layers, s2.Platforms[i].Layers)
		}
	}
}
