// Package pipeline is routeguard's one stage behind every front door: the
// objects a source produced (internal/render, internal/flux,
// internal/argocd; the pipeline imports none of them) are prepared
// (configuration, substitution, transforms: what will be applied) and
// analyzed (context paths, plugins, every analyzer) into an outcome. The
// actions of internal/action connect the sources to it.
//
// Nothing here keeps process-wide state: any number of runs, of different
// repositories, may go on concurrently in one process.
package pipeline
