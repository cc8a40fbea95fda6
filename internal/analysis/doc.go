// Package analysis is routeguard's analysis core: the Analyzer interface,
// findings and their severities, the catalog of finding codes, the runner
// that builds the indexes once and runs every analyzer over a rendered set,
// and the settings (severity overrides, suppressions) applied to what the
// analyzers report.
//
// Analyzers live in sub-packages (gatewayapi, ingress, istioroutes, policy,
// schema), one analyzer per file; internal/analysis/registry lists them.
// Heavy analyzers that must stay out of the default link (Istio) add
// themselves through Register.
package analysis
