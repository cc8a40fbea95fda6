package cmp

import (
	"cmp"

	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
)

// Request turns a build environment and its settings into the pipeline
// request `cmp generate` runs for the app directory cwd, confined to the
// repository copy argocd-cmp-server unpacked (RepoRoot(cwd, SourcePath)):
// the Application's Helm options, substitution variables (Flux semantics),
// weights and failOn. `argocd build` renders routeguard plugin sources
// through it too, so both render an Application the same way. Analyze is
// left off; plugins are refused from the repository.
func (b *Build) Request(s Settings, cwd string, host pipeline.PluginHost) pipeline.Request {
	opts := render.Options{
		Path:         cwd,
		RepoRoot:     RepoRoot(cwd, b.SourcePath),
		AllowNetwork: s.AllowNetwork,
		MaxFileBytes: manifest.DefaultMaxFileBytes,
		Helm: render.HelmOptions{
			Release:     cmp.Or(s.Release, b.AppName),
			Namespace:   b.AppNamespace,
			ValuesFiles: s.ValuesFiles,
			Set:         s.HelmSet(),
			KubeVersion: b.KubeVersion,
			APIVersions: b.KubeAPIVersions,
			IncludeCRDs: true,
		},
	}
	req := pipeline.Request{
		Render:           &opts,
		Overrides:        pipeline.Overrides{FailOn: s.FailOn, Weights: s.Weights},
		DefaultNamespace: opts.Helm.Namespace,
		Plugins:          host,
	}
	if len(s.Variables) > 0 {
		req.Substitution = &pipeline.Substitution{Variables: s.Variables, Strict: true, Namespace: b.AppNamespace,
			Origin: "the Application's substitution-variables parameter"}
	}
	return req
}
