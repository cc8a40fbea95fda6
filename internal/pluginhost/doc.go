// Package pluginhost is routeguard's side of the plugin SDK
// (github.com/routeguard/routeguard/plugins/sdk): it finds the plugins
// .routeguard.yaml declares (or a plugin directory holds), verifies each
// binary's SHA-256 before it runs, starts it with a minimal environment,
// and wraps it as an analysis.Analyzer, so that the runner runs plugins
// next to the built-in analyzers and their findings reach every report
// format. A plugin that fails (crash, hang past the deadline, wrong
// protocol version, undeclared codes) becomes one error naming it,
// recorded on the Session; the run goes on or fails as configured.
//
// Istio's analysis runs through the same boundary as a first-party plugin
// (cmd/routeguard-istio), started only when the rendered set holds Istio
// objects, so the routeguard binary does not link Istio.
package pluginhost

import _ "github.com/routeguard/routeguard/plugins/sdk"
