package policy

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

const (
	syncWave = "argocd.argoproj.io/sync-wave"
	hookAnno = "argocd.argoproj.io/hook"
	helmHook = "helm.sh/hook"
)

// CRDOrdering finds custom resources that Argo CD applies before the
// CustomResourceDefinition of their kind, which the same app renders: a
// resource in an earlier sync wave than its CRD, or in a PreSync hook
// while the CRD is not. A resource in the same wave as its CRD is fine:
// Argo CD (gitops-engine's hasCRDOfGroupKind) skips the dry run for custom
// resources whose CRD is part of the sync, and applies CRDs first within a
// wave. That case was RG4003, now retired.
type CRDOrdering struct{}

// Metadata implements analysis.Analyzer.
func (CRDOrdering) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name:        "policy.CRDOrdering",
		Description: "Finds custom resources that Argo CD would apply before the CRD of their kind (an earlier sync wave, or a PreSync hook).",
		Doc:         "Custom resources Argo CD would apply before the CRD of their kind that the app renders: in an earlier sync wave, or in a PreSync hook while the CRD is not (`RG4004`). The same wave is fine: Argo CD (gitops-engine's `hasCRDOfGroupKind`) skips the dry run for custom resources whose CRD is in the same sync, and applies CRDs first within a wave; that case was `RG4003`, now retired.",
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
		crdPhase, crdWave := phase(crd), wave(crd)
		for _, cr := range c.Objects().ByKind(group, kind) {
			p := phase(cr)
			switch {
			case p < crdPhase:
				c.ReportCode(cr, analysis.CodeCRDAfterResource, kind, "as a "+phaseNames[p]+" hook", crd.Name, "phase "+phaseNames[crdPhase])
			case p == crdPhase && wave(cr) < crdWave:
				c.ReportCode(cr, analysis.CodeCRDAfterResource, kind, fmt.Sprintf("in %s %d", syncWave, wave(cr)), crd.Name, fmt.Sprintf("wave %d", crdWave))
			}
		}
	}
	return nil
}

// Argo CD's sync phases in order; normal resources are in Sync.
const (
	phasePreSync = iota
	phaseSync
	phasePostSync
)

var phaseNames = []string{"PreSync", "Sync", "PostSync"}

// phase returns the sync phase Argo CD applies o in: its hook annotation
// (Argo CD's, else Helm's, as Argo CD maps them), else Sync.
func phase(o *manifest.Object) int {
	a := o.Annotations()
	hooks := a[hookAnno]
	if hooks == "" {
		switch {
		case strings.Contains(a[helmHook], "pre-install"), strings.Contains(a[helmHook], "pre-upgrade"):
			return phasePreSync
		case strings.Contains(a[helmHook], "post-install"), strings.Contains(a[helmHook], "post-upgrade"):
			return phasePostSync
		}
		return phaseSync
	}
	switch {
	case strings.Contains(hooks, "PreSync"):
		return phasePreSync
	case strings.Contains(hooks, "PostSync"), strings.Contains(hooks, "SyncFail"):
		return phasePostSync
	}
	return phaseSync
}

func wave(o *manifest.Object) int {
	w, err := strconv.Atoi(strings.TrimSpace(o.Annotations()[syncWave]))
	if err != nil {
		return 0
	}
	return w
}
