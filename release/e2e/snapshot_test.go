package e2e

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/release/image"
)

type artifact struct {
	Name, Path, Type, Goos, Goarch string
	Extra                          map[string]any
}

type metadata struct {
	ProjectName string `json:"project_name"`
	Version     string `json:"version"`
	Commit      string `json:"commit"`
}

func readDist(t *testing.T) (string, metadata, []artifact) {
	t.Helper()
	dist := mustEnv(t, "RELEASE_DIST", "dist/ with `goreleaser release --snapshot`")
	var md metadata
	var arts []artifact
	for file, v := range map[string]any{"metadata.json": &md, "artifacts.json": &arts} {
		data, err := os.ReadFile(filepath.Join(dist, file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	return dist, md, arts
}

var platforms = []struct{ goos, goarch string }{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}}

// TestSnapshot checks the release GoReleaser built: eight binaries, one
// archive per platform holding both, checksums of the archives, an SBOM
// per binary, version and revision stamped.
func TestSnapshot(t *testing.T) {
	dist, md, arts := readDist(t)
	abs, _ := filepath.Abs(root)
	path := func(a artifact) string { return filepath.Join(abs, a.Path) }
	byType := map[string][]artifact{}
	for _, a := range arts {
		byType[a.Type] = append(byType[a.Type], a)
	}
	if n := len(byType["Binary"]); n != 8 {
		t.Errorf("%d binaries, want 8", n)
	}
	if n := len(byType["Archive"]); n != 4 {
		t.Errorf("%d archives, want 4", n)
	}
	if n := len(byType["SBOM"]); n != 8 {
		t.Errorf("%d SBOMs, want 8 (one per binary)", n)
	}
	wantVersion := "routeguard v" + md.Version + " (revision " + md.Commit + ") "
	for _, a := range byType["Binary"] {
		checkBinary(t, path(a), a.Goos, a.Goarch)
		if goos, goarch := hostPlatform(); a.Goos == goos && a.Goarch == goarch && a.Name == "routeguard" {
			if got := versionLine(t, path(a)); !strings.HasPrefix(got, wantVersion) {
				t.Errorf("%s version = %q, want %q...", a.Path, got, wantVersion)
			}
		}
	}

	// checksums.txt covers every archive.
	sums := map[string]string{}
	data, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 {
			sums[f[1]] = f[0]
		}
	}
	for _, p := range platforms {
		name := fmt.Sprintf("routeguard_%s_%s_%s.tar.gz", md.Version, p.goos, p.goarch)
		file := filepath.Join(dist, name)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("archive: %v", err)
			continue
		}
		sum := sha256.Sum256(data)
		if sums[name] != hex.EncodeToString(sum[:]) {
			t.Errorf("checksums.txt says %q for %s, its sha256 is %x", sums[name], name, sum)
		}
		got := tarNames(t, file)
		for _, want := range []string{"routeguard", "routeguard-istio", "README.md", "schema/routeguard.schema.json"} {
			if !got[want] {
				t.Errorf("%s lacks %s (holds %v)", name, want, got)
			}
		}
	}

	// The SBOMs list the modules each binary was built from.
	for _, a := range byType["SBOM"] {
		data, err := os.ReadFile(path(a))
		if err != nil {
			t.Fatal(err)
		}
		var bom struct {
			BOMFormat string `json:"bomFormat"`
			Metadata  struct {
				Component struct{ Name, Version string } `json:"component"`
			} `json:"metadata"`
			Components []struct{ Name, Version string } `json:"components"`
		}
		if err := json.Unmarshal(data, &bom); err != nil {
			t.Fatalf("%s: %v", a.Path, err)
		}
		if bom.BOMFormat != "CycloneDX" || bom.Metadata.Component.Name != "github.com/routeguard/routeguard" || bom.Metadata.Component.Version != "v"+md.Version {
			t.Errorf("%s: format %q, component %+v", a.Path, bom.BOMFormat, bom.Metadata.Component)
		}
		names := map[string]bool{}
		for _, c := range bom.Components {
			names[c.Name] = true
		}
		// Each binary's own dependencies: routeguard renders with Kustomize,
		// routeguard-istio runs Istio's analyzers; both speak the plugin SDK.
		want := []string{"github.com/routeguard/routeguard/plugins/sdk", "sigs.k8s.io/kustomize/api"}
		if strings.HasPrefix(filepath.Base(a.Path), "routeguard-istio_") {
			want = []string{"github.com/routeguard/routeguard/plugins/sdk", "istio.io/istio"}
		}
		for _, w := range want {
			if !names[w] {
				t.Errorf("%s: %d components, without %s", a.Path, len(bom.Components), w)
			}
		}
	}
}

// TestSnapshotArchiveRuns unpacks this machine's archive and analyzes the
// Istio example: routeguard finds routeguard-istio beside itself.
func TestSnapshotArchiveRuns(t *testing.T) {
	dist, md, _ := readDist(t)
	goos, goarch := hostPlatform()
	archive := filepath.Join(dist, fmt.Sprintf("routeguard_%s_%s_%s.tar.gz", md.Version, goos, goarch))
	dir := t.TempDir()
	untar(t, archive, dir)
	cmd := exec.Command(filepath.Join(dir, "routeguard"), "analyze", "examples/apps/routing/istio")
	cmd.Dir = root
	cmd.Env = []string{"PATH=/nonexistent", "HOME=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "routeguard-istio is neither beside routeguard nor on PATH") {
		t.Errorf("the unpacked routeguard does not find routeguard-istio beside it:\n%s", out)
	}
}

// TestSnapshotMatchesImageBuild: release/image builds the same bytes as
// GoReleaser for the same version and commit, so `make image` stands for
// the release image's binaries. `make test-release` builds the image
// (IMAGE_LAYOUT) with the snapshot's version and commit; otherwise the
// binaries are built here.
func TestSnapshotMatchesImageBuild(t *testing.T) {
	_, md, arts := readDist(t)
	abs, _ := filepath.Abs(root)
	mine := map[string]string{} // "linux/amd64 routeguard" -> file
	if layout := os.Getenv("IMAGE_LAYOUT"); layout != "" {
		s, err := image.Inspect(layout)
		if err != nil {
			t.Fatal(err)
		}
		if v := s.Annotations["org.opencontainers.image.version"]; v != "v"+md.Version {
			t.Fatalf("IMAGE_LAYOUT holds %s, the snapshot is v%s: build the image with the snapshot's version (make test-release)", v, md.Version)
		}
		dir := t.TempDir()
		for _, p := range s.Platforms {
			for _, n := range []string{"routeguard", "routeguard-istio"} {
				f := filepath.Join(dir, p.Platform.Architecture+"-"+n)
				if err := p.ExtractFile("/usr/local/bin/"+n, f); err != nil {
					t.Fatal(err)
				}
				mine["linux/"+p.Platform.Architecture+" "+n] = f
			}
		}
	} else {
		bins, err := image.GoBuild(context.Background(), image.BuildOptions{Source: abs, Out: t.TempDir(),
			Version: "v" + md.Version, Revision: md.Commit})
		if err != nil {
			t.Fatal(err)
		}
		for p, files := range bins {
			for n, f := range files {
				mine[strings.Join(strings.Split(p, "/")[:2], "/")+" "+n] = f
			}
		}
	}
	n := 0
	for _, a := range arts {
		if a.Type != "Binary" || a.Goos != "linux" {
			continue
		}
		f, ok := mine["linux/"+a.Goarch+" "+a.Name]
		if !ok {
			t.Errorf("no image build of %s", a.Path)
			continue
		}
		if !sameFile(t, filepath.Join(abs, a.Path), f) {
			t.Errorf("%s differs from the image's %s", a.Path, a.Name)
		}
		n++
	}
	if n != 4 {
		t.Errorf("compared %d linux binaries, want 4", n)
	}
}

func sameFile(t *testing.T, a, b string) bool {
	t.Helper()
	da, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	db, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(da) == sha256.Sum256(db)
}

func tarNames(t *testing.T, file string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	walkTar(t, file, func(h *tar.Header, _ io.Reader) { names[h.Name] = true })
	return names
}

func untar(t *testing.T, file, dir string) {
	t.Helper()
	walkTar(t, file, func(h *tar.Header, r io.Reader) {
		if h.Typeflag != tar.TypeReg || strings.Contains(h.Name, "/") {
			return
		}
		f, err := os.OpenFile(filepath.Join(dir, h.Name), os.O_CREATE|os.O_WRONLY, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(f, r); err != nil {
			t.Fatal(err)
		}
		f.Close()
	})
}

func walkTar(t *testing.T, file string, fn func(*tar.Header, io.Reader)) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		fn(h, tr)
	}
}
