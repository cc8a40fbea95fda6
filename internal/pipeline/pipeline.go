package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
	"github.com/routeguard/routeguard/internal/substitute"
	"github.com/routeguard/routeguard/internal/transform"
)

// Input is what a source (render, flux, argocd) produced, and where its
// configuration is.
type Input struct {
	// Objects are what will be applied, once substituted and transformed.
	Objects *manifest.Set
	// AppDir and RepoRoot say where to look for .routeguard.yaml (RepoRoot
	// defaults to AppDir); Trace, when set, records the files looked for.
	AppDir, RepoRoot string
	Trace            *confine.Trace
	// Config is the configuration to use. When nil, ConfigFile is read, else
	// the app directory's .routeguard.yaml, else the repository root's.
	Config     *config.Config
	ConfigFile string
}

// Changes are what the front door changes in the objects besides the
// configuration's transforms.
type Changes struct {
	// Substitution, when set, substitutes variables with Flux's postBuild
	// semantics before the transforms.
	Substitution *Substitution
	// Overrides are what the caller's flags or parameters say; they win over
	// the configuration's transforms.
	Overrides Overrides
}

// Substitution is a set of postBuild variables.
type Substitution struct {
	Variables map[string]string
	Strict    bool
	Namespace string // the namespace of the synthetic Kustomization
	Origin    string // what declared the variables, for messages
}

// Overrides are settings from flags or Argo CD parameters.
type Overrides struct {
	Weights   map[string]map[string]int // per service; win over transforms.weights
	SyncWaves bool
}

// Outcome is what the stage produced.
type Outcome struct {
	RepoRoot string
	Config   *config.Config

	// Set is what will be applied: substituted and transformed.
	Set *manifest.Set

	// The analysis' results (see Analyze).
	Findings []analysis.Finding
	// FailOn is the effective threshold (override, config, else error).
	FailOn analysis.FailOn
	// Failed: a finding reached FailOn.
	Failed bool
	// PluginFailed: a plugin failed and plugins.onError says fail.
	PluginFailed bool
	// Notices are for the user (plugin notes and failures), in order.
	Notices []notice.Notice
	// Owners says, for a whole tree (every Argo CD Application, a Flux
	// tree), what renders each object of Set; nil otherwise.
	Owners map[manifest.Key]Owner
	// Unbuilt are the parts of the input that were not built, or built
	// partly (a tree's Kustomizations, an Argo CD repository's
	// Applications), set by the front door that built them.
	Unbuilt []notice.Unbuilt
	// Unrendered are the scopes the analysis took as holding objects it
	// could not render (Analysis.Unrendered and the scopes it found).
	Unrendered []analysis.UnrenderedScope
}

// Prepare loads the configuration and substitutes and transforms the
// input's objects: the outcome's Set is what will be applied. An error
// means the configuration is wrong or the objects could not be
// substituted or transformed.
func Prepare(ctx context.Context, in Input, ch Changes) (*Outcome, error) {
	if in.Objects == nil {
		return nil, errors.New("pipeline: no objects")
	}
	out := &Outcome{RepoRoot: cmp.Or(in.RepoRoot, in.AppDir), Set: in.Objects, Config: in.Config}
	if out.Config == nil {
		var err error
		if out.Config, err = loadConfig(in.ConfigFile, in.AppDir, out.RepoRoot, in.Trace); err != nil {
			return nil, err
		}
	}
	if s := ch.Substitution; s != nil && len(s.Variables) > 0 {
		set, err := substitute.Apply(ctx, out.Set, substitute.Kustomization(s.Namespace, s.Variables), nil,
			substitute.Options{Strict: s.Strict, Origin: s.Origin})
		if err != nil {
			return nil, err
		}
		out.Set = set
	}
	if err := transform.Apply(out.Set, MergeTransforms(out.Config.Transforms, ch.Overrides)); err != nil {
		return nil, err
	}
	return out, nil
}

// Run is Prepare, then Analyze.
func Run(ctx context.Context, in Input, ch Changes, a Analysis) (*Outcome, error) {
	out, err := Prepare(ctx, in, ch)
	if err != nil {
		return nil, err
	}
	if err := out.Analyze(ctx, a); err != nil {
		return nil, err
	}
	return out, nil
}

// ContextRenderer renders the context paths of cfg, for a repository.
type ContextRenderer func(ctx context.Context, cfg *config.Config, repoRoot string) (*manifest.Set, error)

// contextSet renders the context paths and adds the context objects.
func (a Analysis) contextSet(ctx context.Context, cfg *config.Config, repoRoot string) (*manifest.Set, error) {
	set := manifest.NewSet()
	if len(cfg.ContextPaths) > 0 {
		if a.ContextPaths == nil {
			return nil, fmt.Errorf("%s: contextPaths: the caller gave no way to render them (a bug)", cfg.File)
		}
		var err error
		if set, err = a.ContextPaths(ctx, cfg, repoRoot); err != nil {
			return nil, err
		}
	}
	if a.ContextObjects != nil {
		for _, o := range a.ContextObjects.Objects() {
			if _, dup := set.Get(o.Key()); !dup {
				if err := set.Add(o); err != nil {
					return nil, err
				}
			}
		}
	}
	return set, nil
}
