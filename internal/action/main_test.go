package action

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/render"
)

// TestMain lets the test binary answer Kustomize's helm calls, as the
// routeguard binary does.
func TestMain(m *testing.M) {
	if code, ok := render.ServeHelmShim(context.Background(), os.Args, os.Getenv, os.Stdout, os.Stderr); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func writeTree(t *testing.T, files map[string]string) string {
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

func objects(t *testing.T, yaml string) *manifest.Set {
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

func codes(fs []analysis.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code+" "+f.Object.String())
	}
	return out
}

const route = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: shop}
spec:
  rules:
    - backendRefs:
        - {name: web, port: 80}
`

// otherService is a Service of the route's namespace that is not its
// backend: the app renders Services there, so a missing one is dangling
// (RG1101), not "cannot check" (RG0001).
const otherService = `---
apiVersion: v1
kind: Service
metadata: {name: db, namespace: shop}
spec:
  ports: [{port: 5432}]
`
