package istio

import (
	"context"
	"slices"
	"strings"

	"istio.io/istio/pkg/config/analysis/analyzers"
	"istio.io/istio/pkg/config/analysis/legacy/util/kuberesource"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/internal/tlsdata"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Analyzers is Istio's analyzers as one routeguard analyzer. It is in no
// registry: the routeguard-istio plugin runs it out of process, and a binary
// that wants it in process passes it to the pipeline
// (pipeline.Analysis.Analyzers), so that importing the analysis packages
// never links Istio.
type Analyzers struct {
	Options Options // DefaultNamespace is taken from the run's context when empty
}

var _ analysis.Analyzer = Analyzers{}

// Metadata implements analysis.Analyzer.
func (a Analyzers) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name: Name,
		Description: "Runs Istio's own configuration analyzers (as istioctl analyze does) over the rendered " +
			"objects with Services, Namespaces and the Pods that rendered workloads imply, in all namespaces",
		Inputs: inputs(),
	}
}

// Analyze implements analysis.Analyzer. Context objects are analyzed too,
// so references into them resolve; findings about them are dropped by the
// runner.
func (a Analyzers) Analyze(ctx context.Context, c *analysis.Context) error {
	opts := a.Options
	if opts.DefaultNamespace == "" {
		opts.DefaultNamespace = c.DefaultNamespace()
	}
	objs := c.Objects().Objects()
	if extra := c.ContextObjects().Objects(); len(extra) > 0 {
		objs = append(slices.Clip(objs), extra...)
	}
	findings, err := Analyze(ctx, objs, opts)
	if err != nil {
		return err
	}
	for _, f := range findings {
		c.Report(f)
	}
	return nil
}

// inputs lists the kinds Istio's analyzers read plus the workload kinds
// whose pod templates stand in for Pods, sorted.
func inputs() []manifest.GroupKind {
	seen := map[manifest.GroupKind]bool{}
	for _, s := range kuberesource.ConvertInputsToSchemas(analyzers.AllCombined().Metadata().Inputs).All() {
		if s.Group() == "" && excludedKinds[s.Kind()] {
			continue
		}
		if s.Kind() == "MeshConfig" || s.Kind() == "MeshNetworks" {
			continue // Istio's own settings, added by Analyze, never rendered
		}
		seen[manifest.GroupKind{Group: s.Group(), Kind: s.Kind()}] = true
	}
	for gk := range templatePaths {
		seen[gk] = true
	}
	for _, gk := range tlsdata.Inputs() { // what creates credentialName Secrets
		seen[gk] = true
	}
	out := make([]manifest.GroupKind, 0, len(seen))
	for gk := range seen {
		out = append(out, gk)
	}
	slices.SortFunc(out, func(a, b manifest.GroupKind) int {
		if c := strings.Compare(a.Group, b.Group); c != 0 {
			return c
		}
		return strings.Compare(a.Kind, b.Kind)
	})
	return out
}
