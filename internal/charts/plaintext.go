package charts

import (
	"fmt"
	"net"
	"net/url"
)

// Charts are fetched over TLS only (https://, and oci:// without
// spec.insecure), except from a loopback address (127.0.0.0/8, ::1, localhost: a
// chart server of the same machine, as a test or a CI job's own
// service). A chart downloaded in plain text from a host on the
// network can be changed on the way by anyone on the path, and the review
// would then check what they chose: a silent pass on a pull request, or
// templates and values no one in the repository wrote. Such a chart is
// not fetched; the fetch error makes the HelmRelease or Application not
// checked (a notice), never a finding. What the chart cache already holds
// is used as it is: the user put it there (--chart-cache).
//
// Loopback is an IP literal or the name localhost (RFC 6761: it resolves
// to loopback; Argo CD and Helm's registry client speak plain HTTP to a
// localhost registry themselves).

// plainTextRefused returns the error for fetching href (a chart
// repository's index or archive, or an OCI registry reached with
// Insecure) without TLS from a host that is not a loopback address; nil
// when TLS is used or the host is a loopback address.
func plainTextRefused(href string, insecureOCI bool) error {
	u, err := url.Parse(href)
	if err != nil {
		return fmt.Errorf("chart URL %q: %w", href, err)
	}
	plain := u.Scheme == "http" || (u.Scheme == "oci" && insecureOCI)
	if !plain {
		return nil
	}
	if ip := net.ParseIP(u.Hostname()); u.Hostname() == "localhost" || (ip != nil && ip.IsLoopback()) {
		return nil
	}
	what := "plain http"
	if u.Scheme == "oci" {
		what = "plain HTTP to the registry (spec.insecure)"
	}
	return fmt.Errorf("%s is fetched over %s, without TLS: anyone on the network path could change the chart, so routeguard does not fetch it "+
		"(serve the repository over https, put the chart in Git, or place it in --chart-cache)", u.Redacted(), what)
}
