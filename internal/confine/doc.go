// Package confine is the one way routeguard reads a repository: every file
// of an app (directory apps, Kustomize, Helm charts and values, the helm
// shim, Flux scans, .routeguard.yaml, the CMP's parameter announcement) is
// read through a Root.
//
// A Root reads through Go's os.Root, so every read resolves symlinks at
// every level inside the root and refuses any that leads out (or is
// absolute); it refuses files that are not regular (devices, FIFOs,
// sockets) before opening them, reads at most a size limit, and never
// shows anything under .git/ (which holds credentials CI persists and the
// history an app has no business reading).
package confine
