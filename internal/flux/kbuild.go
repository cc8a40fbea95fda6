package flux

import (
	"fmt"
	"path/filepath"
	"sync"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/yaml"
)

// Kustomize keeps its OpenAPI schema in process-wide state, and krusty is
// not safe for concurrent use. fluxcd/pkg/kustomize.Build serializes
// builds and, before each one, resets that state and parses the embedded
// Kubernetes schema again (~45 ms, more than half of a small build), so
// that a kustomization's openapi: or crds: fields cannot leak into the next
// build. kustomizeBuild runs krusty with Build's options under one lock and
// starts every build from the same state, parsing the schema again only
// after a build that could change it (one whose kustomization files set
// openapi: or crds:).
var (
	buildMu      sync.Mutex
	openapiDirty = true // unknown at start
)

func kustomizeBuild(fs filesys.FileSystem, dirPath string) (res resmap.ResMap, err error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	// Kustomize tends to panic on invalid object data; recover as
	// fluxcd/pkg/kustomize.Build does.
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("recovered from kustomize build panic: %v", r)
			openapiDirty = true
		}
	}()
	if openapiDirty {
		openapi.ResetOpenAPI()
		_ = openapi.Schema()
		openapiDirty = false
	}
	w := &schemaWatch{FileSystem: fs}
	k := krusty.MakeKustomizer(&krusty.Options{
		LoadRestrictions: kustypes.LoadRestrictionsNone,
		PluginConfig:     kustypes.DisabledPluginConfig(),
	})
	res, err = k.Run(w, dirPath)
	if w.changes {
		openapiDirty = true
	}
	return res, err
}

// schemaWatch notes kustomization files that change Kustomize's OpenAPI
// state (openapi:, crds:).
type schemaWatch struct {
	filesys.FileSystem
	changes bool
}

func (w *schemaWatch) ReadFile(p string) ([]byte, error) {
	data, err := w.FileSystem.ReadFile(p)
	if err == nil && !w.changes && isKustomizeFile(filepath.Base(p)) {
		var top map[string]any
		if yaml.Unmarshal(data, &top) != nil {
			w.changes = true // cannot tell: be safe
		} else if _, ok := top["openapi"]; ok {
			w.changes = true
		} else if _, ok := top["crds"]; ok {
			w.changes = true
		}
	}
	return data, err
}
