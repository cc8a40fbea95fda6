// Package routing is the one source of what routeguard calls routing: the
// kinds it analyzes, checks the health of and alerts on, and the walk over
// the weighted backends of routes that the traffic transforms and the Argo
// CD parameter announcement share.
package routing
