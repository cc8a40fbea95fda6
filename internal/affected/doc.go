// Package affected decides which apps of a review a change can affect
// (--changed-from, --changed-files), so that the others need not be
// built again at the base revision.
//
// The attribution is exact, not re-derived from each tool's rules: every
// app is rendered once, at head, with a trace of everything its render
// observed of the repository (confine.Trace: the files it read wherever
// they are, the paths it looked at, the directories it listed, the globs
// it matched and where links led). Kustomize bases, components, patches
// and generators, Helm values files and charts in Git, $ref sources,
// substituteFrom ConfigMaps and Secrets in the tree: whatever the render
// read is in the trace, whichever tool read it. An app is affected when a
// changed path meets one of its observations, when its trace cannot vouch
// for the render (opaque: a child process, the network, a tree outside the
// repository), when its Argo CD manifest-generate-paths name a changed
// path, when it exists at one revision only, or when an app it needs (the
// parent that generates it, a dependsOn dependency) is affected.
//
// When a changed path is one routeguard cannot attribute (Options.Global:
// the configuration every app's analysis reads; or no traces at all)
// every app is affected and Result.All says why: a gate never skips what
// it cannot show to be unaffected.
package affected
