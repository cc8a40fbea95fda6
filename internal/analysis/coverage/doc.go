// Package coverage holds the analyzers that keep a run from looking clean
// when it checked nothing: an app that renders no objects (RG0007) and a
// run without any routing object (RG0100). They are not in the registry:
// the front doors that build many apps at once (argocd, flux) add them,
// since for one app directory `analyze` already shows what it rendered.
package coverage
