package argocdcmp

import (
	"cmp"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/render"
)

// Request is how `cmp generate` renders an app directory for an
// Application: its render options and what the Application's parameters
// change (substitution variables, weights, failOn).
type Request struct {
	Render render.Options
	// Variables are substituted with Flux's postBuild semantics, strictly,
	// for a Kustomization in Namespace (the Application's destination).
	Variables map[string]string
	Namespace string
	Weights   map[string]map[string]int
	FailOn    analysis.FailOn
}

// VariablesOrigin names where the variables come from, for messages.
const VariablesOrigin = "the Application's substitution-variables parameter"

// Request turns a build environment and its settings into the request
// `cmp generate` runs for the app directory cwd, confined to the
// repository copy argocd-cmp-server unpacked (RepoRoot(cwd, SourcePath)):
// the Application's Helm options, substitution variables, weights and
// failOn. `argocd build` renders routeguard plugin sources through it too,
// so both render an Application the same way.
func (b *Build) Request(s Settings, cwd string) Request {
	return Request{
		Render: render.Options{
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
		},
		Variables: s.Variables,
		Namespace: b.AppNamespace,
		Weights:   s.Weights,
		FailOn:    s.FailOn,
	}
}
