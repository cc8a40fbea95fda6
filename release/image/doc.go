// Package image builds routeguard's Argo CD CMP sidecar image without a
// container engine: routeguard and routeguard-istio, cross-compiled static
// for linux/amd64 and linux/arm64, as one layer on a base image, user 999,
// entrypoint /var/run/argocd/argocd-cmp-server (the argocd-cmp-server that
// Argo CD's repo-server copies into the shared var-files volume).
//
// The result is a multi-arch OCI image index, written as an OCI image
// layout (and, optionally, an oci-archive tar of it) or pushed to a
// registry. The same inputs give the same bytes: binaries are built with
// -trimpath, tar entries carry fixed times and owners, and every time
// stamp is the Created option (SOURCE_DATE_EPOCH in the Makefile).
//
// The base is one of:
//   - the release base, gcr.io/distroless/static-debian12:nonroot pinned by
//     digest (Distroless; needs the registry);
//   - an OCI layout on disk (Layout), e.g. that base fetched once with
//     `crane pull --format=oci`, for air-gapped builds of the release image;
//   - a base assembled here from pinned inputs (Local): /etc/passwd and
//     /etc/group with root, nobody and argocd (999), /etc/nsswitch.conf,
//     Mozilla's CA roots from golang.org/x/crypto/x509roots/fallback and a
//     /tmp. `make image` uses it, since no registry is reachable there; the
//     layer on top is the same bytes as on the release base.
//
// ko was considered: it builds one Go binary per image with its own
// entrypoint, while this image carries two binaries and runs a program it
// does not contain.
package image
