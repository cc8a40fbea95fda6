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

// unchanged reports whether the app at rel renders and analyzes the same
// in both revisions, so that it is rendered once, without analysis (its
// findings would be the same on both sides): its objects still enter both
// route maps, where a change elsewhere (a Gateway listener removed) can
// change where its routes attach. That is certain only for a directory app
// (plain YAML/JSON; its output depends on nothing but its own files) with
// no .jsonnet (imports reach outside), no symbolic links (they may point
// outside), no contextPaths in its configuration, the same bytes in every
// file under rel in both revisions, and the same .routeguard.yaml at the
// repository root. Kustomize and Helm apps are always rendered and
// analyzed in both revisions: their bases, components, values and chart
// dependencies may live anywhere in the repository.
func unchanged(opts Options, baseRoot, headRoot, rel string) bool {
	baseDir := filepath.Join(baseRoot, filepath.FromSlash(rel))
	headDir := filepath.Join(headRoot, filepath.FromSlash(rel))
	if render.Detect(baseDir) != render.ToolDirectory || render.Detect(headDir) != render.ToolDirectory {
		return false
	}
	for _, n := range config.FileNames {
		a, errA := os.ReadFile(filepath.Join(baseRoot, n))
		b, errB := os.ReadFile(filepath.Join(headRoot, n))
		if errors.Is(errA, fs.ErrNotExist) != errors.Is(errB, fs.ErrNotExist) || !bytes.Equal(a, b) {
			return false
		}
	}
	ha, okA := digest(baseDir)
	hb, okB := digest(headDir)
	if !okA || !okB || ha != hb {
		return false
	}
	cfg, err := pipeline.LoadConfig(opts.ConfigFile, headDir, headRoot)
	return err == nil && len(cfg.ContextPaths) == 0
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
