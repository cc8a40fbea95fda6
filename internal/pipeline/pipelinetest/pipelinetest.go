// Package pipelinetest holds what the tests of the pipeline and of the
// actions that drive it share: a repository written from a map, objects
// decoded from YAML, and a route with and without its backend's
// namespace.
package pipelinetest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
)

// WriteTree writes files (path -> content) under a new temporary
// directory and returns it.
func WriteTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Objects decodes yaml into a set.
func Objects(t testing.TB, yaml string) *manifest.Set {
	t.Helper()
	objs, err := manifest.Decode("in.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	set := manifest.NewSet()
	if err := set.AddAll(objs); err != nil {
		t.Fatal(err)
	}
	return set
}

// Route is an HTTPRoute shop/web with the backend Service web:80.
const Route = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: shop}
spec:
  rules:
    - backendRefs:
        - {name: web, port: 80}
`

// OtherService is a Service of the route's namespace that is not its
// backend: the app renders Services there, so a missing one is dangling
// (RG1101), not "cannot check" (RG0001).
const OtherService = `---
apiVersion: v1
kind: Service
metadata: {name: db, namespace: shop}
spec:
  ports: [{port: 5432}]
`

// Service is the route's backend.
const Service = `apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  ports: [{port: 80}]
`
