package flux

import (
	"fmt"
	"path/filepath"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/routeguard/routeguard/internal/render"
)

// offlineFS keeps Kustomize off the network: a kustomization file that
// names anything remote Kustomize would load (a resource, base or
// component, a generator's file, a patch; render.FirstRemoteRef) is
// refused before Kustomize can fetch it (it would clone or download it), and the first one is kept
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
	if key, s, _, ok := render.FirstRemoteRef(data); ok {
		f.mu.Lock()
		if f.refused == "" {
			f.refused = fmt.Sprintf("%s lists the remote %s %q", f.display(p), key, s)
		}
		f.mu.Unlock()
		return nil, fmt.Errorf("%s: remote %s %q refused offline", p, key, s)
	}
	return data, nil
}

// refusal is the first remote reference refused ("" when none).
func (f *offlineFS) refusal() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refused
}
