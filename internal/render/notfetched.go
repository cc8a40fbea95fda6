package render

import (
	"errors"
	"net"
	"strings"
)

// NotFetchedError is a render that needs something routeguard did not
// fetch: a remote Kustomize base or resource without --allow-network, or
// the chart of a Kustomize helmCharts entry that is not in the repository
// (never downloaded). Nothing is known to be wrong with the app; routeguard
// could not check it, and callers that build many apps (argocd analyze)
// skip it with a warning rather than failing it.
type NotFetchedError struct {
	msg string
	err error // what the render reported, when it wraps one
	// tried: the network was allowed, and fetching failed.
	tried bool
}

// Tried reports whether routeguard tried to fetch it (the network was
// allowed) and the network failed, rather than leaving it unfetched.
func (e *NotFetchedError) Tried() bool { return e.tried }

func (e *NotFetchedError) Error() string { return e.msg }

func (e *NotFetchedError) Unwrap() error { return e.err }

// networkFailureMarkers are what a failed fetch reports: Go's HTTP client
// (Kustomize's remote files) and git (Kustomize's remote bases).
var networkFailureMarkers = []string{
	"dial tcp", "no such host", "i/o timeout", "connection refused", "connection reset",
	"TLS handshake timeout", "network is unreachable", "Could not resolve host",
	"Failed to connect to", "Connection timed out", "unable to access '",
}

// networkFailure reports whether a render error with the network allowed
// is the network failing (a host not resolved, a connection refused) rather
// than the repository being wrong: the app could not be checked, which is
// not known to be broken.
func networkFailure(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	msg := err.Error()
	for _, m := range networkFailureMarkers {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}
