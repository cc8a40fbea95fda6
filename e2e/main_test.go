// Package e2e runs routeguard end to end against a local control plane:
// kube-apiserver and etcd, Argo CD's controllers with routeguard's sidecar,
// Flux's controllers, all built from the projects' own Go modules
// (e2e/tools) and run as processes on 127.0.0.1 (see README, "End to end").
package e2e

import (
	"os"
	"testing"

	"github.com/routeguard/routeguard/e2e/testbed"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(teardownChildEnv); mode != "" {
		os.Exit(testbed.Main(teardownChild(mode)))
	}
	os.Exit(testbed.Main(m))
}
