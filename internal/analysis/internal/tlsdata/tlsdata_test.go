package tlsdata

import (
	"os"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
)

func TestContentProblem(t *testing.T) {
	data, err := os.ReadFile("testdata/objects.yaml")
	if err != nil {
		t.Fatal(err)
	}
	objs, err := manifest.Decode("testdata/objects.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"good":        "",
		"not-pem":     "tls.crt holds no PEM certificate",
		"not-base64":  "tls.crt is not base64",
		"no-key":      "it has no tls.key",
		"no-crt":      "it has no tls.crt",
		"empty":       "", // filled in by a controller: not judged
		"sops":        "",
		"templated":   "",
		"reflected":   "",
		"ca-good":     "",
		"ca-missing":  "it has no ca.crt",
		"ca-garbage":  "ca.crt holds no PEM certificate",
		"ca-injected": "", // no data: filled in by a controller
	}
	for _, o := range objs {
		w, ok := want[o.Name]
		if !ok {
			t.Fatalf("unexpected object %s", o.Name)
		}
		if got := ContentProblem(o); (w == "") != (got == "") || !strings.Contains(got, w) {
			t.Errorf("%s: problem %q, want %q", o.Name, got, w)
		}
		delete(want, o.Name)
	}
	if len(want) > 0 {
		t.Errorf("objects missing from testdata: %v", want)
	}
}

func TestProducedSecret(t *testing.T) {
	cert, _ := manifest.FromBody(map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
		"metadata": map[string]any{"name": "c"}, "spec": map[string]any{"secretName": "c-tls"}}, manifest.Source{})
	es, _ := manifest.FromBody(map[string]any{"apiVersion": "external-secrets.io/v1", "kind": "ExternalSecret",
		"metadata": map[string]any{"name": "db"}, "spec": map[string]any{}}, manifest.Source{})
	svc, _ := manifest.FromBody(map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "s"}}, manifest.Source{})
	for _, tc := range []struct {
		o    *manifest.Object
		name string
		ok   bool
	}{{cert, "c-tls", true}, {es, "db", true}, {svc, "", false}} {
		if n, ok := ProducedSecret(tc.o); n != tc.name || ok != tc.ok {
			t.Errorf("%s: %q %v, want %q %v", tc.o.Kind, n, ok, tc.name, tc.ok)
		}
	}
}
