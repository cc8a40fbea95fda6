package routediff

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
)

// maxCompareBytes caps what reusable reads to decide; a larger app is
// simply rendered again.
const maxCompareBytes = 64 << 20

// reusable reports whether the head revision of the app at rel would render
// and analyze exactly as base did, so that base's outcome stands for head
// without rendering it again. That is certain only for a directory app
// (plain YAML/JSON; its output depends on nothing but its own files) with
// no .jsonnet (imports reach outside), no symbolic links (they may point
// outside), no contextPaths in its configuration, the same bytes in every
// file under rel in both revisions, and the same .routeguard.yaml at the
// repository root. Kustomize and Helm apps are always rendered again:
// their bases, components, values and chart dependencies may live
// anywhere in the repository.
func reusable(base *pipeline.Outcome, baseRoot, headRoot, rel string) bool {
	if base == nil || base.Tool != render.ToolDirectory || base.Config == nil || len(base.Config.ContextPaths) > 0 {
		return false
	}
	for _, n := range config.FileNames {
		a, errA := os.ReadFile(filepath.Join(baseRoot, n))
		b, errB := os.ReadFile(filepath.Join(headRoot, n))
		if errors.Is(errA, fs.ErrNotExist) != errors.Is(errB, fs.ErrNotExist) || !bytes.Equal(a, b) {
			return false
		}
	}
	ha, okA := digest(filepath.Join(baseRoot, filepath.FromSlash(rel)))
	hb, okB := digest(filepath.Join(headRoot, filepath.FromSlash(rel)))
	return okA && okB && ha == hb
}

// digest hashes the names and contents of every file under dir; ok is false
// when dir holds what reusable does not vouch for (a symbolic link, a
// .jsonnet or .libsonnet file, anything but files and directories) or more
// than maxCompareBytes.
func digest(dir string) (sum [32]byte, ok bool) {
	h := sha256.New()
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.IsDir():
			h.Write([]byte("d\x00" + filepath.ToSlash(rel) + "\x00"))
			return nil
		case !d.Type().IsRegular():
			return errors.New("not a regular file")
		case strings.HasSuffix(d.Name(), ".jsonnet") || strings.HasSuffix(d.Name(), ".libsonnet"):
			return errors.New("jsonnet")
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if total += int64(len(data)); total > maxCompareBytes {
			return errors.New("too large")
		}
		c := sha256.Sum256(data)
		h.Write([]byte("f\x00" + filepath.ToSlash(rel) + "\x00"))
		h.Write(c[:])
		return nil
	})
	if err != nil {
		return sum, false
	}
	copy(sum[:], h.Sum(nil))
	return sum, true
}
