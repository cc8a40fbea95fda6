package istio

import (
	"fmt"

	istioanalysis "istio.io/istio/pkg/config/analysis"
	"istio.io/istio/pkg/config/analysis/analyzers"
	"istio.io/istio/pkg/config/analysis/msg"
	"istio.io/istio/pkg/config/schema/gvk"
)

// allAnalyzers is analyzers.AllCombined with every analyzer guarded: a
// panic in one of Istio's analyzers (some assert on the shape of objects
// they read, such as the sidecar injector's ConfigMap) becomes Istio's own
// IST0001 internal-error message instead of ending the whole analysis.
func allAnalyzers() istioanalysis.CombinedAnalyzer {
	return istioanalysis.Combine("all", guardedAnalyzers()...)
}

func guardedAnalyzers() []istioanalysis.Analyzer {
	all := analyzers.All()
	guarded := make([]istioanalysis.Analyzer, len(all))
	for i, a := range all {
		guarded[i] = safeAnalyzer{a}
	}
	return guarded
}

type safeAnalyzer struct{ istioanalysis.Analyzer }

func (a safeAnalyzer) Analyze(c istioanalysis.Context) {
	defer func() {
		if r := recover(); r != nil {
			c.Report(gvk.Namespace, msg.NewInternalError(nil, fmt.Sprintf(
				"Istio's analyzer %s failed on this input (%v); its other checks still ran; please report this to routeguard with the input",
				a.Metadata().Name, r)))
		}
	}()
	a.Analyzer.Analyze(c)
}
