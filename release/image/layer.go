package image

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// entry is one file or directory of a layer. Paths are relative to / and
// listed in the order they are written (parents first).
type entry struct {
	name string
	mode int64
	dir  bool
	uid  int
	data []byte // the content, or
	src  string // the file to copy it from
}

// writeLayer writes entries as a gzip-compressed tar. Every header carries
// the same time, numeric owners only and no user or group names, so the
// bytes depend on the contents alone.
func writeLayer(w io.Writer, entries []entry, created time.Time) error {
	zw, err := gzip.NewWriterLevel(w, gzip.DefaultCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.uid, ModTime: created, Format: tar.FormatPAX}
		var r io.ReadCloser
		switch {
		case e.dir:
			h.Typeflag = tar.TypeDir
		case e.src != "":
			f, err := os.Open(e.src)
			if err != nil {
				return err
			}
			fi, err := f.Stat()
			if err != nil {
				f.Close()
				return err
			}
			h.Typeflag, h.Size, r = tar.TypeReg, fi.Size(), f
		default:
			h.Typeflag, h.Size, r = tar.TypeReg, int64(len(e.data)), io.NopCloser(bytes.NewReader(e.data))
		}
		// PAX records only what USTAR cannot hold; no access/change times.
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("layer entry %s: %w", e.name, err)
		}
		if r != nil {
			_, err := io.Copy(tw, r)
			r.Close()
			if err != nil {
				return fmt.Errorf("layer entry %s: %w", e.name, err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

// memLayer is a small layer held in memory.
func memLayer(entries []entry, created time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	if err := writeLayer(&buf, entries, created); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
}

// fileLayer writes a layer to path (which must stay until the image is
// written) and returns it.
func fileLayer(path string, entries []entry, created time.Time) (v1.Layer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := writeLayer(f, entries, created); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	return tarball.LayerFromFile(path, tarball.WithMediaType(types.OCILayer))
}
