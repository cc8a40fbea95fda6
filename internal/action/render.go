package action

import (
	"context"

	"github.com/routeguard/routeguard/internal/render"
)

// Render renders an app directory into the manifests the reconciler would
// apply (routeguard render).
type Render struct {
	Render RenderOptions
	// Output is the manifest format: yaml or json.
	Output string
}

// RenderResult is what Render printed.
type RenderResult struct {
	Result *render.Result
	// Manifests are the objects in the output format.
	Manifests []byte
}

// Run renders the app at path.
func (a *Render) Run(ctx context.Context, env Env, path string) (*RenderResult, error) {
	if err := checkManifestFormat(a.Output); err != nil {
		return nil, err
	}
	opts, err := a.Render.options(env, path)
	if err != nil {
		return nil, err
	}
	// What render prints may be applied: a chart's random functions are
	// Helm's own, never a value anyone could compute.
	opts.Helm.UnpredictableRandom = true
	res, err := render.Render(ctx, opts)
	if err != nil {
		return nil, err
	}
	out, err := encodeManifests(a.Output, res.Set.Objects())
	if err != nil {
		return nil, err
	}
	return &RenderResult{Result: res, Manifests: out}, nil
}
