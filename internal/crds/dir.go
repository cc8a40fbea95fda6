package crds

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/routeguard/routeguard/internal/manifest"
)

// LoadDir reads the CustomResourceDefinitions in dir and its
// subdirectories (files *.yaml, *.yml and *.json; other objects are
// skipped), for example the output of `kubectl get crd -o yaml` saved per
// cluster. The directory is the operator's (--crd-dir), not the
// repository's. Files are read in lexical order; a malformed file is an
// error naming its file and line.
func LoadDir(dir string) ([]*manifest.Object, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("CRD directory: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("CRD directory %s is not a directory", dir)
	}
	var files []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".yaml", ".yml", ".json":
			if d.Type().IsRegular() {
				files = append(files, p)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("CRD directory %s: %w", dir, err)
	}
	sort.Strings(files)
	var out []*manifest.Object
	for _, f := range files {
		info, err := os.Stat(f)
		if err != nil {
			return nil, err
		}
		if info.Size() > manifest.DefaultMaxFileBytes {
			return nil, fmt.Errorf("%s: larger than %d MiB; not a CRD file", f, manifest.DefaultMaxFileBytes>>20)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		objs, err := manifest.Decode(f, data)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			if o.Group() == "apiextensions.k8s.io" && o.Kind == "CustomResourceDefinition" {
				out = append(out, o)
			}
		}
	}
	return out, nil
}
