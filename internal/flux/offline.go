package flux

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/render"
)

// offlineFS keeps Kustomize off the network: a kustomization file that
// lists a remote resource, base or component is refused before Kustomize
// can fetch it (it would clone or download it), and the first one is kept
// so the node is reported as not built here (the controller, which has the
// network, builds it), not as failing.
type offlineFS struct {
	filesys.FileSystem
	display func(abs string) string // path as users see it

	mu      sync.Mutex
	refused string
}

func (f *offlineFS) ReadFile(p string) ([]byte, error) {
	data, err := f.FileSystem.ReadFile(p)
	if err != nil || !isKustomizeFile(filepath.Base(p)) {
		return data, err
	}
	var k map[string]any
	if yaml.Unmarshal(data, &k) != nil {
		return data, nil // Kustomize reports it in its own words
	}
	for _, key := range slices.Sorted(maps.Keys(k)) {
		if !render.IsPathField(key) {
			continue
		}
		for _, s := range field.Strings(k, key) {
			if render.IsRemoteRef(s) {
				f.mu.Lock()
				if f.refused == "" {
					f.refused = fmt.Sprintf("%s lists the remote %s %q", f.display(p), key, s)
				}
				f.mu.Unlock()
				return nil, fmt.Errorf("%s: remote %s %q refused offline", p, key, s)
			}
		}
	}
	return data, nil
}

// refusal is the first remote reference refused ("" when none).
func (f *offlineFS) refusal() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refused
}
