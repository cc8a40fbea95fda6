package flux

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/routeguard/routeguard/internal/manifest"
)

// Build is the output of one Flux object.
type Build struct {
	Object *manifest.Object // the Kustomization or HelmRelease
	Set    *manifest.Set    // nil when skipped
	// Skipped says why the object could not be built offline ("" when built).
	Skipped string
}

// BuildObject builds one Kustomization or HelmRelease of the inventory.
func (inv *Inventory) BuildObject(ctx context.Context, o *manifest.Object, opts Options) (*Build, error) {
	var set *manifest.Set
	var err error
	switch {
	case o.Group() == KustomizeGroup && o.Kind == "Kustomization":
		set, err = inv.BuildKustomization(ctx, o, opts)
	case o.Group() == HelmGroup && o.Kind == "HelmRelease":
		set, err = inv.BuildHelmRelease(ctx, o, opts)
	default:
		return nil, fmt.Errorf("%s: %s is not a Flux Kustomization or HelmRelease", o.Source, o)
	}
	var skip *SkipError
	if errors.As(err, &skip) {
		return &Build{Object: o, Skipped: skip.Reason}, nil
	}
	if err != nil {
		return nil, err
	}
	return &Build{Object: o, Set: set}, nil
}

// BuildAll builds objs in order, stopping at the first error.
func (inv *Inventory) BuildAll(ctx context.Context, objs []*manifest.Object, opts Options) ([]*Build, error) {
	out := make([]*Build, 0, len(objs))
	for _, o := range objs {
		b, err := inv.BuildObject(ctx, o, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// AppDir is the directory whose .routeguard.yaml applies to a build: the
// Kustomization's spec.path, or the HelmRelease's chart directory; the
// repository root when neither is known.
func (inv *Inventory) AppDir(o *manifest.Object) string {
	spec, _ := o.Body["spec"].(map[string]any)
	if p, ok := spec["path"].(string); ok && o.Kind == "Kustomization" {
		return filepath.Join(inv.RepoRoot, filepath.FromSlash(p))
	}
	if c := chartPath(o); c != "" {
		return filepath.Join(inv.RepoRoot, filepath.FromSlash(c))
	}
	return inv.RepoRoot
}

// SubstituteVariable returns the value of spec.postBuild.substitute[name]
// of a Kustomization.
func SubstituteVariable(ks *manifest.Object, name string) (string, bool) {
	spec, _ := ks.Body["spec"].(map[string]any)
	pb, _ := spec["postBuild"].(map[string]any)
	sub, _ := pb["substitute"].(map[string]any)
	v, ok := sub[name].(string)
	return v, ok
}
