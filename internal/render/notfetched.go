package render

// NotFetchedError is a render that needs something routeguard did not
// fetch: a remote Kustomize base or resource without --allow-network, or
// the chart of a Kustomize helmCharts entry that is not in the repository
// (never downloaded). Nothing is known to be wrong with the app; routeguard
// could not check it, and callers that build many apps (argocd analyze)
// skip it with a warning rather than failing it.
type NotFetchedError struct {
	msg string
	err error // what the render reported, when it wraps one
}

func (e *NotFetchedError) Error() string { return e.msg }

func (e *NotFetchedError) Unwrap() error { return e.err }
