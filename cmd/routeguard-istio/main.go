// Command routeguard-istio is the first-party plugin that runs Istio's own
// configuration analyzers (internal/analysis/istio) for routeguard, out of
// process, so that the routeguard binary does not link Istio. routeguard
// starts it only when the rendered objects include Istio kinds, and finds
// it beside its own executable, else on PATH (docs/plugins.md).
package main

import (
	"runtime/debug"

	"github.com/routeguard/routeguard/internal/analysis/istio"
	"github.com/routeguard/routeguard/plugins/sdk"
)

// gcPercent is the plugin's GOGC (plugins get no GOGC from routeguard's
// environment): like routeguard's, it trades a little CPU for a lower peak
// RSS while every object's Istio config is held (docs/analysis-bench.md).
const gcPercent = 70

func main() {
	debug.SetGCPercent(gcPercent)
	sdk.Serve(&istioPlugin{runs: map[*sdk.Request]*istio.Run{}})
}
