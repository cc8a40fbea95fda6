package flux

import (
	"maps"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
)

// Strictness says whether an unset postBuild variable is an error.
type Strictness int

// Strictness values. The zero value is StrictOff, what Flux before 2.9 does.
const (
	// StrictOff substitutes an empty string for an unset variable.
	StrictOff Strictness = iota
	// StrictOn makes an unset variable an error.
	StrictOn
	// StrictAuto decides from the Flux version the tree installs
	// (FluxVersion); strict when none is found, the default of every Flux
	// release since 2.9.
	StrictAuto
)

// lenient: the tree's Flux substitutes an empty string for an unset
// variable (StrictAuto and a version before 2.9, or the gate off).
func (b *nodeRender) lenient() bool {
	return b.opts.Strict == StrictAuto && b.fluxVersion.Known && !b.fluxVersion.Strict
}

// strictness says, for a strict-mode error, why routeguard is strict.
func (b *nodeRender) strictness() string {
	if b.opts.Strict != StrictAuto {
		return ""
	}
	if b.fluxVersion.Known {
		return "strict, as the tree's Flux is: " + b.fluxVersion.Describe()
	}
	return "no Flux version found in the tree, so strict, the default of kustomize-controller since Flux 2.9; if the cluster runs an older Flux or turns the gate off, pass --strict=false, or say it in the tree (kustomize-controller's --feature-gates=StrictPostBuildSubstitutions=false)"
}

// lenientNotice names the variables a Kustomization leaves unset, which the
// tree's Flux substitutes with an empty string.
func (b *nodeRender) lenientNotice(n *Node, set *manifest.Set, unset []string, defined map[string]bool, values map[string]string) notice.Notice {
	names := map[string]bool{}
	for _, v := range unset {
		names[v] = true
	}
	for _, v := range variablesWithoutDefault(set) {
		if !defined[v] && values[v] == "" {
			names[v] = true
		}
	}
	return notice.Notef("%s: postBuild variables not set: %s; %s substitutes an empty string (strict from Flux 2.9: set them, give a default ${name:=value}, or escape $${name})",
		n.describe(), strings.Join(slices.Sorted(maps.Keys(names)), ", "), b.fluxVersion.Describe())
}

// ParseStrictName reads --strict's value as a shard file carries it:
// true, false or auto.
func ParseStrictName(s string) (Strictness, bool) {
	switch s {
	case "true":
		return StrictOn, true
	case "false":
		return StrictOff, true
	case "auto":
		return StrictAuto, true
	}
	return 0, false
}
