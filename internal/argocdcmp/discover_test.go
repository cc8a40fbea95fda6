package argocdcmp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
)

func TestDiscover(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		symlink bool // the marker is a symlink to a regular file
		want    string
	}{
		{"marker", map[string]string{".routeguard-cmp": "", "a.yaml": "kind: ConfigMap\n"}, false, ".routeguard-cmp"},
		{"marker with content", map[string]string{".routeguard-cmp": "anything\n"}, false, ".routeguard-cmp"},
		{"config file is not the marker", map[string]string{".routeguard.yaml": "failOn: error\n", "r.yaml": "kind: HTTPRoute\n"}, false, ""},
		{"httproute", map[string]string{"routes/r.yaml": "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n"}, false, ""},
		{"helm template with an ingress", map[string]string{"Chart.yaml": "name: x\n", "templates/ingress.yaml": "{{- if .Values.ingress }}\nkind: Ingress\n{{- end }}\n"}, false, ""},
		{"marker in a subdirectory", map[string]string{"sub/.routeguard-cmp": ""}, false, ""},
		{"marker is a directory", map[string]string{".routeguard-cmp/x": ""}, false, ""},
		{"marker is a symlink", map[string]string{"target": ""}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for p, c := range tt.files {
				full := filepath.Join(dir, filepath.FromSlash(p))
				os.MkdirAll(filepath.Dir(full), 0o755)
				if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.symlink {
				if err := os.Symlink("target", filepath.Join(dir, Marker)); err != nil {
					t.Fatal(err)
				}
			}
			got, err := Discover(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Discover = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestVariables(t *testing.T) {
	objs, err := manifest.Decode("x.yaml", []byte(`
apiVersion: v1
kind: ConfigMap
metadata: {name: a}
data:
  host: ${cluster}.${domain:=example.com}
  escaped: $${literal}
  bare: $HOME
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: b
  labels: {kustomize.toolkit.fluxcd.io/substitute: disabled}
data:
  x: ${skipped}
`))
	if err != nil {
		t.Fatal(err)
	}
	got := Variables(objs)
	want := map[string]string{"cluster": "", "domain": "example.com"}
	if len(got) != len(want) || got["cluster"] != "" || got["domain"] != "example.com" {
		t.Errorf("Variables = %v, want %v", got, want)
	}
}
