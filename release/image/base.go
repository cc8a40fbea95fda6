package image

import (
	"encoding/pem"
	"fmt"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// Distroless is the release base. Refresh the digest with
// `crane digest gcr.io/distroless/static-debian12:nonroot` (Renovate's
// regex manager in renovate.json proposes it; docs/releasing.md).
const Distroless = "gcr.io/distroless/static-debian12:nonroot@sha256:f5b485ea962d9bd1186b2f6b3a061191539b905b82ec395de78cbfae51f20e35"

// Base supplies the base image of one platform.
type Base interface {
	// Image returns the base for p (OS, Architecture and Variant set).
	Image(p v1.Platform) (v1.Image, error)
	// Name describes the base in the org.opencontainers.image.base.name
	// annotation; "" for a base built here.
	Name() string
}

// Remote is a base in a registry; ref must name a digest, so that the
// image is the same on every build.
func Remote(ref string) (Base, error) {
	r, err := name.ParseReference(ref)
	if err != nil {
		return nil, fmt.Errorf("base %q: %w", ref, err)
	}
	if _, ok := r.(name.Digest); !ok {
		return nil, fmt.Errorf("base %q names no digest; pin it as %s@sha256:... (`crane digest %s`)", ref, ref, ref)
	}
	return remoteBase{ref: r}, nil
}

type remoteBase struct{ ref name.Reference }

func (b remoteBase) Name() string { return b.ref.String() }

func (b remoteBase) Image(p v1.Platform) (v1.Image, error) {
	img, err := remote.Image(b.ref, remote.WithPlatform(p), remote.WithAuthFromKeychain(authn.DefaultKeychain))
	if err != nil {
		return nil, fmt.Errorf("base %s for %s: %w", b.ref, p, err)
	}
	return img, nil
}

// Layout is a base read from an OCI image layout directory holding an image
// index with the platforms (as `crane pull --format=oci REF DIR` writes
// it). name is recorded as the base's name; when it is "", the
// org.opencontainers.image.ref.name of the layout's index.json is, if any.
func Layout(dir, name string) Base {
	if name == "" {
		if idx, err := layout.ImageIndexFromPath(dir); err == nil {
			if m, err := idx.IndexManifest(); err == nil && len(m.Manifests) == 1 {
				name = m.Manifests[0].Annotations[RefNameAnnotation]
			}
		}
	}
	return layoutBase{dir: dir, name: name}
}

type layoutBase struct{ dir, name string }

func (b layoutBase) Name() string { return b.name }

func (b layoutBase) Image(p v1.Platform) (v1.Image, error) {
	idx, err := layout.ImageIndexFromPath(b.dir)
	if err != nil {
		return nil, fmt.Errorf("base layout %s: %w", b.dir, err)
	}
	img, err := pick(idx, p)
	if err != nil {
		return nil, fmt.Errorf("base layout %s: %w", b.dir, err)
	}
	return img, nil
}

// pick finds the image for p in idx, descending into nested indexes.
func pick(idx v1.ImageIndex, p v1.Platform) (v1.Image, error) {
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	for _, d := range m.Manifests {
		switch {
		case d.MediaType.IsIndex():
			child, err := idx.ImageIndex(d.Digest)
			if err != nil {
				return nil, err
			}
			if img, err := pick(child, p); err == nil {
				return img, nil
			}
		case d.MediaType.IsImage() && d.Platform != nil && d.Platform.Satisfies(p):
			return idx.Image(d.Digest)
		}
	}
	return nil, fmt.Errorf("no image for %s", p)
}

// Local is the base assembled from pinned inputs (see the package
// documentation), one layer, created at created.
func Local(created time.Time) Base { return localBase{created: created} }

type localBase struct{ created time.Time }

func (localBase) Name() string { return "" }

func (b localBase) Image(p v1.Platform) (v1.Image, error) {
	files := []entry{
		{name: "etc/", mode: 0o755, dir: true},
		{name: "etc/group", mode: 0o644, data: []byte("root:x:0:\nnobody:x:65534:\nargocd:x:999:\n")},
		{name: "etc/nsswitch.conf", mode: 0o644, data: []byte("hosts: files dns\n")},
		{name: "etc/passwd", mode: 0o644, data: []byte("root:x:0:0:root:/root:/sbin/nologin\n" +
			"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
			"argocd:x:999:999:argocd:/home/argocd:/sbin/nologin\n")},
		{name: "etc/ssl/", mode: 0o755, dir: true},
		{name: "etc/ssl/certs/", mode: 0o755, dir: true},
		{name: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, data: caBundle()},
		{name: "home/", mode: 0o755, dir: true},
		{name: "home/argocd/", mode: 0o700, dir: true, uid: 999},
		{name: "tmp/", mode: 0o777 | tarSticky, dir: true},
	}
	l, err := memLayer(files, b.created)
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: l, MediaType: types.OCILayer,
		History: v1.History{Created: v1.Time{Time: b.created}, CreatedBy: "routeguard release/image: local base", Comment: "users, CA roots, /tmp"}})
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture, cfg.Variant = p.OS, p.Architecture, p.Variant
	cfg.Created = v1.Time{Time: b.created}
	cfg.Config.Env = []string{"PATH=" + searchPath, "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"}
	return mutate.ConfigFile(img, cfg)
}

const tarSticky = 0o1000 // c_ISVTX, as archive/tar's Header.Mode holds it

// caBundle is Mozilla's trust store as golang.org/x/crypto/x509roots/
// fallback embeds it, as PEM; roots NSS constrains (distrust after a date)
// are left out, since a PEM bundle cannot carry the constraint.
func caBundle() []byte {
	var out []byte
	for r := range bundle.Roots() {
		if r.Constraint != nil {
			continue
		}
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate})...)
	}
	return out
}
