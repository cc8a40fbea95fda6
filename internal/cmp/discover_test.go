package cmp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
)

func TestDiscover(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"config file", map[string]string{".routeguard.yaml": "failOn: error\n", "a.yaml": "kind: ConfigMap\n"}, ".routeguard.yaml"},
		{"httproute in a subdirectory", map[string]string{"deploy.yaml": "kind: Deployment\n", "routes/r.yaml": "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n"}, "routes/r.yaml"},
		{"helm template", map[string]string{"Chart.yaml": "name: x\n", "templates/ingress.yaml": "{{- if .Values.ingress }}\napiVersion: networking.k8s.io/v1\nkind: Ingress\n{{- end }}\n"}, "templates/ingress.yaml"},
		{"json list item", map[string]string{"l.json": "{\"items\": [\n {\n  \"kind\": \"VirtualService\",\n  \"apiVersion\": \"networking.istio.io/v1\"\n }\n]}\n"}, "l.json"},
		{"no routing", map[string]string{"deploy.yaml": "kind: Deployment\n", "svc.yaml": "kind: Service\n# kind: Ingress in a comment\n"}, ""},
		{"kind as a value elsewhere", map[string]string{"cm.yaml": "kind: ConfigMap\ndata:\n  note: \"kind: HTTPRoute\"\n"}, ""},
		{"hidden directories skipped", map[string]string{".git/x.yaml": "kind: Ingress\n"}, ""},
		{"not yaml", map[string]string{"README.md": "kind: Ingress\n"}, ""},
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
