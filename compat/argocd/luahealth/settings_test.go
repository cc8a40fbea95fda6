package luahealth

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/gitops-engine/pkg/health"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/lua"
	"github.com/argoproj/argo-cd/v3/util/settings"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/yaml"
)

const namespace = "argocd"

// baseArgoCDCM is argocd-cm as Argo CD's install manifests create it, with a
// key of the user's that the patch must leave alone.
func baseArgoCDCM() *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "argocd-cm", Namespace: namespace,
			Labels: map[string]string{"app.kubernetes.io/name": "argocd-cm", "app.kubernetes.io/part-of": "argocd"}},
		Data: map[string]string{"url": "https://argocd.example.com"},
	}
}

// bundleWithStderr runs `routeguard health bundle --for argocd` with extra
// flags and returns its output and what it said on stderr.
func bundleWithStderr(t *testing.T, args ...string) ([]byte, string) {
	t.Helper()
	cmd := exec.Command(routeguard(t), append([]string{"health", "bundle", "--for", "argocd"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("routeguard health bundle: %v: %s", err, stderr.String())
	}
	return out, stderr.String()
}

// patched applies the Kustomize patch to the base ConfigMap with the
// strategic merge Kustomize uses for built-in kinds.
func patched(t *testing.T, patch []byte) *corev1.ConfigMap {
	t.Helper()
	patchJSON, err := yaml.YAMLToJSON(patch)
	if err != nil {
		t.Fatalf("patch is not YAML: %v", err)
	}
	baseJSON, err := json.Marshal(baseArgoCDCM())
	if err != nil {
		t.Fatal(err)
	}
	merged, err := strategicpatch.StrategicMergePatch(baseJSON, patchJSON, corev1.ConfigMap{})
	if err != nil {
		t.Fatalf("strategic merge of the patch onto argocd-cm: %v", err)
	}
	cm := &corev1.ConfigMap{}
	if err := json.Unmarshal(merged, cm); err != nil {
		t.Fatal(err)
	}
	if cm.Name != "argocd-cm" || cm.Data["url"] != "https://argocd.example.com" {
		t.Fatalf("patch changed the ConfigMap's identity or dropped the user's keys: %s", merged)
	}
	return cm
}

// helmCM builds argocd-cm from the argo-cd chart values: the chart puts
// configs.cm into the ConfigMap's data as is.
func helmCM(t *testing.T, values []byte) *corev1.ConfigMap {
	t.Helper()
	var v struct {
		Configs struct {
			CM map[string]string `json:"cm"`
		} `json:"configs"`
	}
	if err := yaml.UnmarshalStrict(values, &v); err != nil {
		t.Fatalf("helm values: %v", err)
	}
	cm := baseArgoCDCM()
	for k, s := range v.Configs.CM {
		cm.Data[k] = s
	}
	return cm
}

// overrides reads the resource overrides through Argo CD's settings manager,
// the code the application controller uses to load argocd-cm.
func overrides(t *testing.T, cm *corev1.ConfigMap) map[string]v1alpha1.ResourceOverride {
	t.Helper()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "argocd-secret", Namespace: namespace,
		Labels: map[string]string{"app.kubernetes.io/part-of": "argocd"}}}
	mgr := settings.NewSettingsManager(context.Background(), fake.NewClientset(cm, secret), namespace)
	ov, err := mgr.GetResourceOverrides()
	if err != nil {
		t.Fatalf("settings manager: %v", err)
	}
	return ov
}

// TestBundleThroughArgoCDSettings checks that the bundle, as a Kustomize patch
// and as Helm values, is read by Argo CD's settings code and yields, through
// gitops-engine's resource-health lookup with those overrides (what the
// application controller calls), exactly the verdicts of every fixture.
// With --override-builtin every kind is routeguard's; by default the kinds
// Argo CD checks itself are left out, so Argo CD's built-in check (found by
// GetHealthScript) decides them, and the bundle names them on stderr.
func TestBundleThroughArgoCDSettings(t *testing.T) {
	fx := fixtures(t)
	shared := map[string]bool{}
	for _, k := range sharedKinds(t) {
		shared[k] = true
	}
	for _, tc := range []struct {
		name     string
		cm       func() (*corev1.ConfigMap, string)
		override bool
	}{
		{"kustomize patch", func() (*corev1.ConfigMap, string) {
			out, errOut := bundleWithStderr(t)
			return patched(t, out), errOut
		}, false},
		{"helm values", func() (*corev1.ConfigMap, string) {
			out, errOut := bundleWithStderr(t, "--format", "helm")
			return helmCM(t, out), errOut
		}, false},
		{"kustomize patch --override-builtin", func() (*corev1.ConfigMap, string) {
			out, errOut := bundleWithStderr(t, "--override-builtin")
			return patched(t, out), errOut
		}, true},
		{"helm values --override-builtin", func() (*corev1.ConfigMap, string) {
			out, errOut := bundleWithStderr(t, "--format", "helm", "--override-builtin")
			return helmCM(t, out), errOut
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cm, stderr := tc.cm()
			ov := overrides(t, cm)
			var leftOut []string
			for _, dir := range checks(t) {
				key := dir // override keys are <group>/<Kind>
				o, ok := ov[key]
				if shared[dir] && !tc.override {
					if ok {
						t.Errorf("%s: bundled although Argo CD has a built-in check for it", key)
					}
					leftOut = append(leftOut, key)
					continue
				}
				if !ok || o.HealthLua == "" {
					t.Fatalf("no health override for %s among %d overrides", key, len(ov))
				}
				if o.UseOpenLibs {
					t.Fatalf("%s: the bundle turned on useOpenLibs", key)
				}
			}
			if want := "left out " + strings.Join(leftOut, ", ") + ": Argo CD 3.5 has built-in health checks"; len(leftOut) > 0 && !strings.Contains(stderr, want) {
				t.Errorf("stderr %q does not say %q", stderr, want)
			}
			for _, f := range fx {
				script, useOpenLibs, err := (lua.VM{ResourceOverrides: ov}).GetHealthScript(f.obj)
				builtin := shared[f.dir] && !tc.override
				if err != nil || useOpenLibs != builtin || (script == f.script) == builtin {
					t.Fatalf("%s: GetHealthScript gave routeguard's script: %v, useOpenLibs %v, err %v; want Argo CD's built-in: %v", f.dir, script == f.script, useOpenLibs, err, builtin)
				}
				got, err := health.GetResourceHealth(f.obj, lua.ResourceHealthOverrides(ov))
				if builtin {
					// Argo CD's own check decides: the verdict is the built-in's.
					theirs, _, _ := builtinVerdict(t, f.obj)
					if theirs == "error" {
						if err == nil {
							t.Errorf("%s/%s: the built-in fails on this fixture, GetResourceHealth did not", f.dir, f.input)
						}
					} else if err != nil || got == nil || string(got.Status) != theirs {
						t.Errorf("%s/%s: got %+v %v, want Argo CD's %s", f.dir, f.input, got, err, theirs)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s/%s: %v", f.dir, f.input, err)
				}
				if got == nil || *got != f.want {
					t.Errorf("%s/%s: got %+v, want %+v", f.dir, f.input, got, f.want)
				}
			}
		})
	}
}
