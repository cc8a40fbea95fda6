package action

import (
	"context"
	"path/filepath"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/argocdcmp"
	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
)

// CMPParameters is the parameter announcement of routeguard's Config
// Management Plugin for the Argo CD UI: the app is rendered with its
// current parameters to find what to offer.
type CMPParameters struct{}

// CMPParametersResult is the announcement and what stood in its way.
type CMPParametersResult struct {
	Announcement []argocdcmp.Announcement
	// Problems say why part of the announcement is missing (the app does
	// not render, a chart's values cannot be read).
	Problems []error
}

// Run announces the parameters of the app in the working directory. An
// app that does not render still gets the knobs that do not depend on its
// content, so the UI can be used to fix its parameters.
func (CMPParameters) Run(ctx context.Context, env Env) *CMPParametersResult {
	app, err := readCMP(env)
	var out *pipeline.Outcome
	if err == nil {
		_, out, err = renderApp(ctx, app.req.Render, pipeline.Input{}, cmpChanges(*app.req), nil)
	}
	cwd, _ := env.Getwd()
	sourcePath := env.Getenv("ARGOCD_APP_SOURCE_PATH")
	if app.build != nil {
		sourcePath = app.build.SourcePath
	}
	root := argocdcmp.RepoRoot(cwd, sourcePath)
	in := argocdcmp.AnnounceInput{Release: env.Getenv("ARGOCD_APP_NAME"), FailOn: app.settings.FailOn.String()}
	if app.req != nil {
		in.Release = app.req.Render.Helm.Release
	}
	if in.Release == "" {
		in.Release = filepath.Base(cwd)
	}
	if in.FailOn == "" {
		in.FailOn = analysis.FailOnError.String()
		if cfg, err := pipeline.LoadConfig("", cwd, root); err == nil && cfg.FailOn != analysis.FailOnUnset {
			in.FailOn = cfg.FailOn.String()
		}
	}
	res := &CMPParametersResult{}
	if render.Detect(cwd) == render.ToolHelm {
		in.Helm = true
		if r, err := confine.Open(root); err == nil {
			var cerr error
			if in.ValuesFiles, in.HelmValues, cerr = argocdcmp.ChartInputs(r, cwd); cerr != nil {
				res.Problems = append(res.Problems, cerr)
			}
			r.Close()
		}
	}
	if err != nil {
		in.RenderProblem = err.Error()
		res.Problems = append(res.Problems, err)
		// Rendered but not substituted: still offer the variables, since
		// one without a value may be what stops substitution.
		if app.req != nil {
			if rendered, rerr := render.Render(ctx, app.req.Render); rerr == nil {
				in.Variables = argocdcmp.Variables(rendered.Set.Objects())
			}
		}
	} else {
		in.Variables = argocdcmp.Variables(out.Set.Objects())
		in.Weights = argocdcmp.CurrentWeights(out.Set)
	}
	res.Announcement = argocdcmp.Announce(in)
	return res
}
