package image

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeBinaries stands in for the cross-compiled binaries (release/e2e
// builds the real ones): the image's structure does not depend on them.
func fakeBinaries(t *testing.T) Binaries {
	t.Helper()
	bins := Binaries{}
	for _, p := range Platforms {
		files := map[string]string{}
		for _, name := range []string{"routeguard", "routeguard-istio"} {
			path := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(path, []byte(name+" for "+p.String()+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			files[name] = path
		}
		bins[p.String()] = files
	}
	return bins
}

var created = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func build(t *testing.T, bins Binaries, base Base) (layoutDir string, s *Summary) {
	t.Helper()
	idx, err := Assemble(bins, AssembleOptions{Base: base, Created: created, Version: "v1.2.3", Revision: "0123abc", WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	layoutDir = filepath.Join(t.TempDir(), "oci")
	if err := WriteLayout(layoutDir, idx, "ghcr.io/routeguard/routeguard-cmp:v1.2.3"); err != nil {
		t.Fatal(err)
	}
	s, err = Inspect(layoutDir)
	if err != nil {
		t.Fatal(err)
	}
	return layoutDir, s
}

func TestImageOnLocalBase(t *testing.T) {
	_, s := build(t, fakeBinaries(t), Local(created))
	if s.Ref != "ghcr.io/routeguard/routeguard-cmp:v1.2.3" {
		t.Errorf("ref = %q", s.Ref)
	}
	if s.Annotations["org.opencontainers.image.version"] != "v1.2.3" || s.Annotations["org.opencontainers.image.revision"] != "0123abc" {
		t.Errorf("index annotations = %v", s.Annotations)
	}
	if len(s.Platforms) != 2 || s.Platforms[0].Platform.String() != "linux/amd64" || s.Platforms[1].Platform.String() != "linux/arm64/v8" {
		t.Fatalf("platforms = %+v", s.Platforms)
	}
	for _, p := range s.Platforms {
		t.Run(p.Platform.String(), func(t *testing.T) {
			c := p.Config
			if c.Architecture != p.Platform.Architecture || c.OS != "linux" || c.Variant != p.Platform.Variant {
				t.Errorf("config platform %s/%s/%s", c.OS, c.Architecture, c.Variant)
			}
			if c.Config.User != "999:999" {
				t.Errorf("user = %q, want 999:999 (Argo CD runs plugins as 999)", c.Config.User)
			}
			if strings.Join(c.Config.Entrypoint, " ") != "/var/run/argocd/argocd-cmp-server" || len(c.Config.Cmd) != 0 {
				t.Errorf("entrypoint %q cmd %q", c.Config.Entrypoint, c.Config.Cmd)
			}
			env := strings.Join(c.Config.Env, "\n")
			for _, want := range []string{"PATH=/usr/local/sbin:/usr/local/bin:", "HOME=/tmp", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"} {
				if !strings.Contains(env, want) {
					t.Errorf("env lacks %q: %v", want, c.Config.Env)
				}
			}
			if !c.Created.Time.Equal(created) {
				t.Errorf("created = %v, want %v", c.Created, created)
			}
			for _, h := range c.History {
				if !h.Created.Time.Equal(created) {
					t.Errorf("history %q created %v", h.CreatedBy, h.Created)
				}
			}
			if c.Config.Labels["org.opencontainers.image.source"] != "https://github.com/routeguard/routeguard" {
				t.Errorf("labels = %v", c.Config.Labels)
			}
			if len(p.Layers) != 2 {
				t.Errorf("%d layers, want the base's and the binaries'", len(p.Layers))
			}
			for path, want := range map[string]File{
				"/usr/local/bin/routeguard":          {Mode: 0o755},
				"/usr/local/bin/routeguard-istio":    {Mode: 0o755},
				"/etc/passwd":                        {Mode: 0o644},
				"/etc/ssl/certs/ca-certificates.crt": {Mode: 0o644},
				"/tmp":                               {Mode: 0o1777, Dir: true},
				"/home/argocd":                       {Mode: 0o700, Dir: true, Uid: 999, Gid: 999},
			} {
				got, ok := p.Files[path]
				if !ok {
					t.Errorf("no %s", path)
					continue
				}
				if got.Mode != want.Mode || got.Dir != want.Dir || got.Uid != want.Uid || got.Gid != want.Gid {
					t.Errorf("%s: %+v, want %+v", path, got, want)
				}
			}
			dir := t.TempDir()
			bin := filepath.Join(dir, "routeguard")
			if err := p.ExtractFile("/usr/local/bin/routeguard", bin); err != nil {
				t.Fatal(err)
			}
			if data, _ := os.ReadFile(bin); string(data) != "routeguard for "+p.Platform.String()+"\n" {
				t.Errorf("routeguard of %s holds %q", p.Platform, data)
			}
			passwd := filepath.Join(dir, "passwd")
			if err := p.ExtractFile("/etc/passwd", passwd); err != nil {
				t.Fatal(err)
			}
			if data, _ := os.ReadFile(passwd); !strings.Contains(string(data), "\nargocd:x:999:999:") {
				t.Errorf("/etc/passwd has no user 999:\n%s", data)
			}
			certs := filepath.Join(dir, "certs")
			if err := p.ExtractFile("/etc/ssl/certs/ca-certificates.crt", certs); err != nil {
				t.Fatal(err)
			}
			if n := countCerts(t, certs); n < 100 {
				t.Errorf("the CA bundle holds %d certificates", n)
			}
		})
	}
}

func countCerts(t *testing.T, file string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return n
		}
		if _, err := x509.ParseCertificate(b.Bytes); err != nil {
			t.Errorf("certificate %d: %v", n, err)
		}
		n++
	}
}

// TestReproducible: the same inputs give the same digest and the same
// oci-archive bytes; another creation time gives another digest.
func TestReproducible(t *testing.T) {
	bins := fakeBinaries(t)
	archive := func(dir string) []byte {
		f := filepath.Join(t.TempDir(), "image.tar")
		if err := WriteArchive(f, dir, created); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	dir1, s1 := build(t, bins, Local(created))
	dir2, s2 := build(t, bins, Local(created))
	if s1.Digest != s2.Digest {
		t.Errorf("two builds: %s and %s", s1.Digest, s2.Digest)
	}
	a1, a2 := archive(dir1), archive(dir2)
	if !bytes.Equal(a1, a2) {
		t.Errorf("oci-archives differ: sha256 %x and %x", sha256.Sum256(a1), sha256.Sum256(a2))
	}
	idx, err := Assemble(bins, AssembleOptions{Base: Local(created), Created: created.Add(time.Second), Version: "v1.2.3", Revision: "0123abc", WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := idx.Digest(); d == s1.Digest {
		t.Error("another creation time gave the same digest")
	}
}

// TestLayoutBase builds on a multi-arch base read from an OCI layout, as
// an air-gapped release build would (`crane pull --format=oci`): the
// base's layers stay as they are, the manifests name the base, and the
// binaries' layer is the same bytes as on the local base.
func TestLayoutBase(t *testing.T) {
	bins := fakeBinaries(t)
	baseDir := filepath.Join(t.TempDir(), "base")
	baseIdx, err := Assemble(bins, AssembleOptions{Base: Local(created), Created: created, Version: "base", Revision: "base", WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteLayout(baseDir, baseIdx, "registry.example/base:1"); err != nil {
		t.Fatal(err)
	}
	base, err := Inspect(baseDir)
	if err != nil {
		t.Fatal(err)
	}
	_, local := build(t, bins, Local(created))
	_, s := build(t, bins, Layout(baseDir, ""))
	for i, p := range s.Platforms {
		b := base.Platforms[i]
		if len(p.Layers) != len(b.Layers)+1 {
			t.Fatalf("%s: %d layers on a base of %d", p.Platform, len(p.Layers), len(b.Layers))
		}
		for j := range b.Layers {
			if p.Layers[j] != b.Layers[j] {
				t.Errorf("%s: base layer %d changed", p.Platform, j)
			}
		}
		if top, want := p.Layers[len(p.Layers)-1], local.Platforms[i].Layers[1]; top != want {
			t.Errorf("%s: binaries layer %s, on the local base %s", p.Platform, top, want)
		}
		if p.Annotations["org.opencontainers.image.base.name"] != "registry.example/base:1" ||
			p.Annotations["org.opencontainers.image.base.digest"] != b.Digest.String() {
			t.Errorf("%s: annotations %v, want the base's name and digest %s", p.Platform, p.Annotations, b.Digest)
		}
		if p.Config.Config.User != "999:999" {
			t.Errorf("%s: user %q", p.Platform, p.Config.Config.User)
		}
	}
}

func TestRemoteBaseNeedsDigest(t *testing.T) {
	if _, err := Remote("gcr.io/distroless/static-debian12:nonroot"); err == nil || !strings.Contains(err.Error(), "names no digest") {
		t.Errorf("Remote(tag) error = %v", err)
	}
	if _, err := Remote(Distroless); err != nil {
		t.Errorf("Remote(Distroless): %v", err)
	}
}

func TestAssembleErrors(t *testing.T) {
	bins := fakeBinaries(t)
	delete(bins["linux/amd64"], "routeguard-istio")
	_, err := Assemble(bins, AssembleOptions{Base: Local(created), Created: created, WorkDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "no routeguard-istio binary") {
		t.Errorf("missing binary: error %v", err)
	}
	_, err = Assemble(Binaries{"linux/s390x": {}}, AssembleOptions{Base: Local(created), Created: created, WorkDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "of which 0 are in Platforms") {
		t.Errorf("unknown platform: error %v", err)
	}
}
