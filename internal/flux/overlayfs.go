package flux

import (
	"path/filepath"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// overlayFS serves one generated kustomization file over a read-only
// filesystem: kustomize-controller writes the generator's output into its
// copy of the source; routeguard never writes into the user's checkout.
type overlayFS struct {
	filesys.FileSystem
	path string // absolute path of the generated file
	data []byte
}

func (o overlayFS) is(p string) bool {
	abs, err := filepath.Abs(p)
	return err == nil && abs == o.path
}

func (o overlayFS) ReadFile(p string) ([]byte, error) {
	if o.is(p) {
		return append([]byte(nil), o.data...), nil
	}
	return o.FileSystem.ReadFile(p)
}

func (o overlayFS) Exists(p string) bool {
	return o.is(p) || o.FileSystem.Exists(p)
}

func (o overlayFS) IsDir(p string) bool {
	return !o.is(p) && o.FileSystem.IsDir(p)
}

func (o overlayFS) ReadDir(p string) ([]string, error) {
	names, err := o.FileSystem.ReadDir(p)
	if err != nil {
		return nil, err
	}
	if abs, err := filepath.Abs(p); err == nil && abs == filepath.Dir(o.path) {
		base := filepath.Base(o.path)
		for _, n := range names {
			if n == base {
				return names, nil
			}
		}
		names = append(names, base)
	}
	return names, nil
}
