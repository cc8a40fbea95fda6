// Command routeguard-istio is the first-party plugin that runs Istio's own
// configuration analyzers (internal/analysis/istio) for routeguard, out of
// process, so that the routeguard binary does not link Istio. routeguard
// starts it only when the rendered objects include Istio kinds, and finds
// it beside its own executable, else on PATH (docs/plugins.md).
package main

import (
	"github.com/routeguard/routeguard/internal/analysis/istio"
	"github.com/routeguard/routeguard/internal/gctune"
	"github.com/routeguard/routeguard/plugins/sdk"
)

func main() {
	gctune.Apply(func(string) (string, bool) { return "", false }) // plugins get no GOGC from routeguard
	sdk.Serve(&istioPlugin{runs: map[*sdk.Request]*istio.Run{}})
}
