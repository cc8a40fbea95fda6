package render

import "github.com/routeguard/routeguard/internal/manifest"

// OriginAnnotation is the annotation Kustomize's buildMetadata
// originAnnotations writes on every object it builds.
const OriginAnnotation = originAnnotation

// Origins maps Kustomize origin annotations to file:line sources inside a
// repository, decoding each file once; the same lookup `render` uses, for
// builds that run Kustomize themselves (flux build).
type Origins struct {
	lines *lineFinder
}

// NewOrigins returns an origin lookup confined to repoRoot.
func NewOrigins(repoRoot string) (*Origins, error) {
	r, err := newRoot(repoRoot)
	if err != nil {
		return nil, err
	}
	return &Origins{lines: newLineFinder(r, manifest.DefaultMaxFileBytes)}, nil
}

// Origin returns where the object of kind and name built from appDir (an
// absolute path) came from, given its origin annotation's value, and the
// lines of its fields in that file; fallback (and no lines) when the origin
// is remote or not found.
func (o *Origins) Origin(appDir, origin, kind, name string, fallback manifest.Source) (manifest.Source, *manifest.FieldIndex) {
	return o.lines.origin(appDir, origin, kind, name, fallback)
}

// Rel shows an absolute path relative to the repository root.
func (o *Origins) Rel(p string) string { return o.lines.root.rel(p) }
