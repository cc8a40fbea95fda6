package bundle

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestControllerGenReproducesFlux: the CRDs of helm-controller,
// notification-controller and source-watcher are written by controller-gen
// from their API modules, because the Go module proxy does not serve those
// controllers' modules. That this gives Flux's own CRDs is checked on a
// controller whose module it does serve: controller-gen ControllerGenVersion
// on kustomize-controller's API module (go.mod's version) gives, as the
// bundle keeps it (without descriptions), exactly the CRD of
// kustomize-controller's own config/crd/bases at the same version.
func TestControllerGenReproducesFlux(t *testing.T) {
	api, err := required("..", "github.com/fluxcd/kustomize-controller/api")
	if err != nil {
		t.Fatal(err)
	}
	root, err := download("..", "github.com/fluxcd/kustomize-controller", api.Version)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if out, err := goCmd("..", "run", "sigs.k8s.io/controller-tools/cmd/controller-gen@"+ControllerGenVersion,
		"crd", "paths="+api.Module+"/...", "output:crd:dir="+dir); err != nil {
		t.Fatalf("controller-gen: %v: %s", err, out)
	}
	const name = "kustomize.toolkit.fluxcd.io_kustomizations.yaml"
	generated, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	upstream, err := os.ReadFile(filepath.Join(root.Dir, "config", "crd", "bases", name))
	if err != nil {
		t.Fatal(err)
	}
	a, err := compactCRD(splitDocuments(generated)[0])
	if err != nil {
		t.Fatal(err)
	}
	b, err := compactCRD(splitDocuments(upstream)[0])
	if err != nil {
		t.Fatal(err)
	}
	// controller-gen's version annotation is the same too (v0.21.0), so
	// the whole object must agree.
	if !bytes.Equal(a, b) {
		t.Errorf("controller-gen %s on %s@%s does not give kustomize-controller's own CRD (once descriptions are dropped)", ControllerGenVersion, api.Module, api.Version)
	}
}
