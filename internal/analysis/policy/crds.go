package policy

import (
	"context"
	"strconv"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

const (
	syncWave        = "argocd.argoproj.io/sync-wave"
	syncOptions     = "argocd.argoproj.io/sync-options"
	skipDryRunOnCRD = "SkipDryRunOnMissingResource=true"
)

// CRDOrdering finds resources rendered together with the
// CustomResourceDefinition of their kind without an Argo CD sync wave that
// applies the CRD first (or SkipDryRunOnMissingResource): the first sync's
// dry run fails because the kind is not known yet.
type CRDOrdering struct{}

// Metadata implements analysis.Analyzer.
func (CRDOrdering) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name:        "policy.CRDOrdering",
		Description: "Finds custom resources rendered with their CRD without a sync wave that applies the CRD first.",
		Inputs:      []manifest.GroupKind{{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}},
	}
}

// Analyze implements analysis.Analyzer.
func (CRDOrdering) Analyze(ctx context.Context, c *analysis.Context) error {
	for _, crd := range c.Objects().ByKind("apiextensions.k8s.io", "CustomResourceDefinition") {
		if err := ctx.Err(); err != nil {
			return err
		}
		group := field.String(crd.Body, "spec", "group")
		kind := field.String(crd.Body, "spec", "names", "kind")
		if kind == "" {
			continue
		}
		crdWave := wave(crd)
		for _, cr := range c.Objects().ByKind(group, kind) {
			if wave(cr) > crdWave || strings.Contains(cr.Annotations()[syncOptions], skipDryRunOnCRD) {
				continue
			}
			c.Reportf(cr, analysis.CodeCRDOrdering,
				"this %s is rendered with its CustomResourceDefinition %s, but its sync wave (%d) is not after the CRD's (%d); the first sync can fail because the kind is unknown; annotate the CRD with a lower %s (or this object with %s: %s)",
				kind, crd.Name, wave(cr), crdWave, syncWave, syncOptions, skipDryRunOnCRD)
		}
	}
	return nil
}

func wave(o *manifest.Object) int {
	w, err := strconv.Atoi(strings.TrimSpace(o.Annotations()[syncWave]))
	if err != nil {
		return 0
	}
	return w
}
