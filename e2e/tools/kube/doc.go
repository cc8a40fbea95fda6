// Package kube is the e2e control plane's tool module: kube-apiserver
// (k8s.io/kubernetes v1.37.1, built with `go build` of its tool directive)
// and etcd's embedded server (cmd/etcd). It has its own build list, so it is
// a module of its own beside the main one (DESIGN.md).
package kube
