package action

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/flux"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/pipeline"
)

// WeightsVariable is the variable that states traffic weights in the
// one-line form ("reviews: blue 90, green 10") for `routeguard postrender`;
// in a Flux Kustomization's postBuild it reaches no one (RG0109).
const WeightsVariable = "routeguard_weights"

// fluxTransformsUnapplied reports the traffic transforms that would apply
// to the built nodes (the .routeguard.yaml of a node's spec.path or chart
// directory, else the repository root's; a Kustomization's
// routeguard_weights variable). kustomize-controller and helm-controller
// never run routeguard, so flux build prints what they apply, untransformed,
// and says so once per config file and once per variable (RG0109). Nodes
// come in the tree's order, so the findings are the same on every run.
func fluxTransformsUnapplied(root string, nodes []*flux.Node) ([]analysis.Finding, error) {
	var out []analysis.Finding
	seen := map[string]bool{}
	for _, n := range nodes {
		if n.Status != flux.Built {
			continue
		}
		cfg, err := pipeline.LoadConfig("", cmp.Or(n.Dir, root), root)
		if err != nil {
			return nil, err
		}
		if t := cfg.Transforms; t != nil && (len(t.Weights) > 0 || t.SyncWaves) && !seen[cfg.File] {
			seen[cfg.File] = true
			src := manifest.Source{File: repoRelative(root, cfg.File), Line: cfg.TransformsLine}
			out = append(out, analysis.Finding{Code: analysis.CodeFluxTransforms, Object: analysis.RefOf(n.Object), Source: src, Analyzer: "flux"}.Fill(fmt.Sprintf("transforms (%s) of %s are not applied", transformsSummary(t), src.File), n.String()))
		}
		if _, ok := flux.SubstituteVariable(n.Object, WeightsVariable); ok {
			out = append(out, analysis.Finding{Code: analysis.CodeFluxTransforms, Object: analysis.RefOf(n.Object), Source: n.Object.Source, Analyzer: "flux"}.Fill(fmt.Sprintf("spec.postBuild.substitute.%s sets no weights (kustomize-controller substitutes ${%s} where the manifests name it)", WeightsVariable, WeightsVariable), n.String()))
		}
	}
	return out, nil
}

// transformsSummary names what a transforms block sets ("weights for
// reviews, ratings; syncWaves").
func transformsSummary(t *config.Transforms) string {
	var parts []string
	if len(t.Weights) > 0 {
		svcs := make([]string, 0, len(t.Weights))
		for s := range t.Weights {
			svcs = append(svcs, s)
		}
		slices.Sort(svcs)
		parts = append(parts, "weights for "+strings.Join(svcs, ", "))
	}
	if t.SyncWaves {
		parts = append(parts, "syncWaves")
	}
	return strings.Join(parts, "; ")
}

// repoRelative is path relative to root with slashes, or path itself when
// it is not below root.
func repoRelative(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}
