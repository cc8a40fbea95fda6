package image

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
	"path"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// Summary describes an image written by WriteLayout, for tests and for a
// person checking a build.
type Summary struct {
	Ref         string            // the layout's name for the image
	Digest      v1.Hash           // of the image index
	Annotations map[string]string // of the image index
	Platforms   []PlatformImage
}

// PlatformImage is one platform's image.
type PlatformImage struct {
	Platform    v1.Platform
	Digest      v1.Hash
	Annotations map[string]string // of the manifest
	Config      *v1.ConfigFile
	Layers      []v1.Hash // compressed digests, base first
	Files       map[string]File
	image       v1.Image
}

// File is one entry of an image's flattened file system.
type File struct {
	Mode     int64 // permission and sticky bits, as in the tar header
	Dir      bool
	Uid, Gid int
	Size     int64
}

// Inspect reads the OCI layout in dir.
func Inspect(dir string) (*Summary, error) {
	root, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, err
	}
	rm, err := root.IndexManifest()
	if err != nil {
		return nil, err
	}
	if len(rm.Manifests) != 1 {
		return nil, fmt.Errorf("%s: index.json lists %d images, want 1", dir, len(rm.Manifests))
	}
	desc := rm.Manifests[0]
	idx, err := root.ImageIndex(desc.Digest)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	s := &Summary{Ref: desc.Annotations[RefNameAnnotation], Digest: desc.Digest, Annotations: m.Annotations}
	for _, d := range m.Manifests {
		if d.Platform == nil {
			return nil, fmt.Errorf("%s: manifest %s has no platform", dir, d.Digest)
		}
		img, err := idx.Image(d.Digest)
		if err != nil {
			return nil, err
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			return nil, err
		}
		im, err := img.Manifest()
		if err != nil {
			return nil, err
		}
		p := PlatformImage{Platform: *d.Platform, Digest: d.Digest, Annotations: im.Annotations, Config: cfg, image: img}
		for _, l := range im.Layers {
			p.Layers = append(p.Layers, l.Digest)
		}
		if p.Files, err = files(img); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", dir, d.Platform, err)
		}
		s.Platforms = append(s.Platforms, p)
	}
	return s, nil
}

func files(img v1.Image) (map[string]File, error) {
	rc := mutate.Extract(img)
	defer rc.Close()
	out := map[string]File{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out[clean(h.Name)] = File{Mode: h.Mode, Dir: h.Typeflag == tar.TypeDir, Uid: h.Uid, Gid: h.Gid, Size: h.Size}
	}
}

// clean makes a tar entry name an absolute path ("./usr/bin/" -> "/usr/bin").
func clean(name string) string { return path.Clean("/" + name) }

// ExtractFile copies the file at path (absolute in the image) to dst.
func (p PlatformImage) ExtractFile(file, dst string) error {
	rc := mutate.Extract(p.image)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s: no %s in the image", p.Platform, file)
		}
		if err != nil {
			return err
		}
		if clean(h.Name) != file {
			continue
		}
		f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode&0o777))
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, tr); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
}
