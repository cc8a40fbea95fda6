package flux

import (
	"path/filepath"
	"sync"

	yaml "go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/routeguard/routeguard/internal/render"
)

// offlineFS keeps Kustomize off the network: every string of a
// kustomization file that Kustomize would fetch (a remote resource, base
// or component, a generator's file, a patch; render.DropRemoteRefs) is
// taken out before Kustomize reads the file, and kept, so that the rest is
// built offline and what was left out is reported: the node is partly
// built, or, when the build fails without it, not built here (the
// controller, which has the network, builds it), never failing.
type offlineFS struct {
	filesys.FileSystem
	// disk is the file system below the generated kustomization (overlayFS):
	// lines are those of the file as written.
	disk    filesys.FileSystem
	display func(abs string) string // path as users see it

	mu      sync.Mutex
	dropped []render.RemoteRef
	seen    map[render.RemoteRef]bool
}

func (f *offlineFS) ReadFile(p string) ([]byte, error) {
	data, err := f.FileSystem.ReadFile(p)
	if err != nil || !isKustomizeFile(filepath.Base(p)) {
		return data, err
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return data, nil // Kustomize reports it in its own words
	}
	refs := render.DropRemoteRefs(doc.Content[0], f.display(p))
	if len(refs) == 0 {
		return data, nil
	}
	f.linesOnDisk(p, refs)
	out, err := yaml.Marshal(&doc)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	if f.seen == nil {
		f.seen = map[render.RemoteRef]bool{}
	}
	for _, r := range refs {
		if !f.seen[r] {
			f.seen[r] = true
			f.dropped = append(f.dropped, r)
		}
	}
	f.mu.Unlock()
	return out, nil
}

// remote lists the remote references taken out, in the order read.
func (f *offlineFS) remote() []render.RemoteRef {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]render.RemoteRef(nil), f.dropped...)
}

// linesOnDisk takes the references' lines from the file as written when
// what Kustomize reads is kustomize-controller's generated kustomization
// (spec.path's own, with Flux's fields added).
func (f *offlineFS) linesOnDisk(p string, refs []render.RemoteRef) {
	if f.disk == nil {
		return
	}
	data, err := f.disk.ReadFile(p)
	var doc yaml.Node
	if err != nil || yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return
	}
	line := map[[2]string]int{}
	for _, r := range render.DropRemoteRefs(doc.Content[0], "") {
		line[[2]string{r.Field, r.Value}] = r.Line
	}
	for i := range refs {
		refs[i].Line = line[[2]string{refs[i].Field, refs[i].Value}]
	}
}
