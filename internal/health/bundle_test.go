package health

import (
	"bytes"
	"testing"

	"github.com/fluxcd/pkg/apis/kustomize"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/routing"
)

func TestBundlesRoundTrip(t *testing.T) {
	checks, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	patch, err := ArgoCDPatch(checks, "")
	if err != nil {
		t.Fatal(err)
	}
	var cm struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Metadata   map[string]string `json:"metadata"`
		Data       map[string]string `json:"data"`
	}
	if err := yaml.UnmarshalStrict(patch, &cm); err != nil {
		t.Fatal(err)
	}
	if cm.Kind != "ConfigMap" || cm.Metadata["name"] != "argocd-cm" || len(cm.Data) != len(checks) {
		t.Fatalf("patch: kind %s name %s, %d keys for %d checks", cm.Kind, cm.Metadata["name"], len(cm.Data), len(checks))
	}
	for _, c := range checks {
		if cm.Data[c.ConfigMapKey()] != c.Lua {
			t.Errorf("patch key %s does not hold %s/health.lua byte for byte", c.ConfigMapKey(), c.Dir)
		}
	}
	if cm.Data["resource.customizations.health.networking.istio.io_VirtualService"] == "" {
		t.Error("patch misses the Istio VirtualService key")
	}

	values, err := ArgoCDHelmValues(checks)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Configs struct {
			CM map[string]string `json:"cm"`
		} `json:"configs"`
	}
	if err := yaml.UnmarshalStrict(values, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Configs.CM) != len(cm.Data) {
		t.Fatalf("helm values hold %d keys, patch %d", len(v.Configs.CM), len(cm.Data))
	}
	for k, s := range cm.Data {
		if v.Configs.CM[k] != s {
			t.Errorf("helm values key %s differs from the patch", k)
		}
	}

	for _, istio := range []bool{false, true} {
		out, err := FluxHealthCheckExprs(checks, istio)
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			HealthCheckExprs []kustomize.CustomHealthCheck `json:"healthCheckExprs"`
		}
		if err := yaml.UnmarshalStrict(out, &f); err != nil {
			t.Fatal(err)
		}
		// One entry per health-checked kind (routing.HealthChecked), Istio's
		// only when asked for.
		want := 0
		for _, gk := range routing.HealthChecked {
			if istio || gk.Group != routing.IstioGroup {
				want++
			}
		}
		if len(f.HealthCheckExprs) != want {
			t.Fatalf("includeIstio=%v: %d entries, want %d", istio, len(f.HealthCheckExprs), want)
		}
		for _, e := range f.HealthCheckExprs {
			c, ok := Find(checks, e.APIVersion[:bytes.IndexByte([]byte(e.APIVersion), '/')], e.Kind)
			if !ok || e != c.CEL {
				t.Errorf("flux entry %s %s is not the check's health.cel.yaml", e.APIVersion, e.Kind)
			}
		}
	}
}

func TestBundlesDeterministic(t *testing.T) {
	checks, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	reversed := make([]Check, len(checks))
	for i, c := range checks {
		reversed[len(checks)-1-i] = c
	}
	for name, build := range map[string]func([]Check) ([]byte, error){
		"argocd": func(c []Check) ([]byte, error) { return ArgoCDPatch(c, "argocd") },
		"helm":   ArgoCDHelmValues,
		"flux":   func(c []Check) ([]byte, error) { return FluxHealthCheckExprs(c, true) },
	} {
		a, errA := build(checks)
		b, errB := build(reversed)
		if errA != nil || errB != nil || len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: output depends on the order of the checks (%v, %v)", name, errA, errB)
		}
	}
}

// TestBuiltinKinds: the kinds listed without loading the checks are
// Builtin's, in its order.
func TestBuiltinKinds(t *testing.T) {
	checks, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	got := BuiltinKinds()
	if len(got) != len(checks) || len(got) == 0 {
		t.Fatalf("BuiltinKinds %v, Builtin %d checks", got, len(checks))
	}
	for i, c := range checks {
		if got[i] != c.Kind {
			t.Errorf("kind %d: %s, Builtin's %s", i, got[i], c.Kind)
		}
	}
}
