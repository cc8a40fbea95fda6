package substitute

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/manifest"
)

// fluxReference runs Flux's own entry point the way kustomize-controller
// does: resources straight from kustomize's factory, ConfigMaps and Secrets
// from a controller-runtime client (the fake one, not routeguard's), and
// the result encoded like routeguard's output for a byte comparison.
func fluxReference(t *testing.T, input string, ks map[string]any, src *Sources, strict bool) (string, error) {
	t.Helper()
	var objs []client.Object
	for n, data := range src.ConfigMaps {
		objs = append(objs, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Namespace: n.Namespace}, Data: data})
	}
	for n, data := range src.Secrets {
		objs = append(objs, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Namespace: n.Namespace}, Data: data})
	}
	c := fake.NewClientBuilder().WithObjects(objs...).Build()
	rf := provider.NewDefaultDepProvider().GetResourceFactory()
	resources, err := rf.SliceFromBytes([]byte(input))
	if err != nil {
		t.Fatalf("kustomize factory: %v", err)
	}
	always, _, _ := unstructured.NestedString(ks, "spec", "postBuild", "substituteStrategy")
	var out strings.Builder
	for _, res := range resources {
		got, err := fluxkustomize.SubstituteVariables(context.Background(), c, unstructured.Unstructured{Object: ks}, res,
			fluxkustomize.SubstituteWithStrict(strict), fluxkustomize.SubstituteWithAlways(always == "Always"))
		if err != nil {
			return "", err
		}
		if got == nil {
			got = res
		}
		m, err := got.Map()
		if err != nil {
			t.Fatal(err)
		}
		data, err := yaml.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out.WriteString("---\n")
		out.Write(data)
	}
	return out.String(), nil
}

func routeguard(t *testing.T, input string, ks map[string]any, src *Sources, strict bool) (string, error) {
	t.Helper()
	objs, err := manifest.Decode("in.yaml", []byte(input))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	set := manifest.NewSet()
	if err := set.AddAll(objs); err != nil {
		t.Fatal(err)
	}
	got, err := Apply(context.Background(), set, ks, src, Options{Strict: strict, Origin: "Kustomization flux-system/apps"})
	if err != nil {
		return "", err
	}
	// Encoded with the same encoder as fluxReference: the comparison is of
	// the objects, not of two YAML writers.
	var b strings.Builder
	for _, o := range got.Objects() {
		data, err := yaml.Marshal(o.Body)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("---\n")
		b.Write(data)
	}
	return b.String(), nil
}

func ks(postBuild map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1",
		"kind":       "Kustomization",
		"metadata":   map[string]any{"name": "apps", "namespace": "flux-system"},
		"spec":       map[string]any{"path": "./apps", "postBuild": postBuild},
	}
}

func cm(name string, data map[string]string) *Sources {
	return &Sources{ConfigMaps: map[NamespacedName]map[string]string{{"flux-system", name}: data}}
}

func obj(value string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n  namespace: apps\ndata:\n  value: " + value + "\n"
}

var vars = map[string]any{"name": "Reviews", "host": "api.shop.example.com", "replicas": "3", "empty": ""}

func TestMatchesFlux(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		postB   map[string]any
		src     *Sources
		strict  bool
		want    string // substring of routeguard's output ("" = no check)
		wantErr string // substring of routeguard's error
	}{
		{name: "plain", input: obj("${name}"), postB: map[string]any{"substitute": vars}, want: "value: Reviews"},
		{name: "default colon-equals unset", input: obj("${missing:=fallback}"), postB: map[string]any{"substitute": vars}, strict: true, want: "value: fallback"},
		{name: "default colon-equals set", input: obj("${name:=fallback}"), postB: map[string]any{"substitute": vars}, strict: true, want: "value: Reviews"},
		{name: "default colon-minus", input: obj("${missing:-fallback}"), postB: map[string]any{"substitute": vars}, strict: true, want: "value: fallback"},
		{name: "colon-minus on empty", input: obj("${empty:-fallback}"), postB: map[string]any{"substitute": vars}, strict: true, want: "value: fallback"},
		// envsubst treats a set-but-empty variable as unset for = too.
		{name: "equals on empty", input: obj("x${empty=fallback}"), postB: map[string]any{"substitute": vars}, strict: true, want: "value: xfallback"},
		// fluxcd/pkg/envsubst v1.8.0 does not parse ${var-default}: an error in Flux, so in routeguard.
		{name: "minus unset", input: obj("${missing-fallback}"), postB: map[string]any{"substitute": vars}, strict: true, wantErr: "missing closing brace"},
		{name: "length", input: obj("${#host}"), postB: map[string]any{"substitute": vars}, want: "value: 20"},
		{name: "upper first", input: obj("${host^}"), postB: map[string]any{"substitute": vars}, want: "value: Api.shop"},
		{name: "upper all", input: obj("${host^^}"), postB: map[string]any{"substitute": vars}, want: "value: API.SHOP.EXAMPLE.COM"},
		{name: "lower first", input: obj("${name,}"), postB: map[string]any{"substitute": vars}, want: "value: reviews"},
		{name: "lower all", input: obj("${name,,}"), postB: map[string]any{"substitute": vars}, want: "value: reviews"},
		{name: "substring", input: obj("${host:4:4}"), postB: map[string]any{"substitute": vars}, want: "value: shop"},
		{name: "trim prefix", input: obj("${host#api.}"), postB: map[string]any{"substitute": vars}, want: "value: shop.example.com"},
		{name: "trim longest prefix", input: obj("${host##*.}"), postB: map[string]any{"substitute": vars}, want: "value: com"},
		{name: "trim suffix", input: obj("${host%.com}"), postB: map[string]any{"substitute": vars}, want: "value: api.shop.example\n"},
		{name: "trim longest suffix", input: obj("${host%%.*}"), postB: map[string]any{"substitute": vars}, want: "value: api\n"},
		{name: "replace first", input: obj("${host/./-}"), postB: map[string]any{"substitute": vars}, want: "value: api-shop.example.com"},
		{name: "replace all", input: obj("${host//./-}"), postB: map[string]any{"substitute": vars}, want: "value: api-shop-example-com"},
		{name: "escape", input: obj(`"$${name}"`), postB: map[string]any{"substitute": vars}, strict: true, want: "value: ${name}"},
		{name: "bare dollar untouched", input: obj("$name-$HOME"), postB: map[string]any{"substitute": vars}, strict: true, want: "value: $name-$HOME"},
		{name: "number becomes int", input: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: ${replicas}\n", postB: map[string]any{"substitute": vars}, want: "replicas: 3\n"},
		{name: "unset non-strict is empty", input: obj("x${missing}"), postB: map[string]any{"substitute": vars}, want: "value: x\n"},
		{name: "unset strict", input: obj("${missing}"), postB: map[string]any{"substitute": vars}, strict: true, wantErr: `variable not set (strict mode): "missing"`},
		{name: "malformed", input: obj(`"${name"`), postB: map[string]any{"substitute": vars}, wantErr: "in.yaml:1: ConfigMap apps/demo: postBuild substitution"},
		{name: "unsupported plus", input: obj("${name+alt}"), postB: map[string]any{"substitute": vars}, wantErr: "variable substitution failed"},
		{name: "question mark form", input: obj("${name:?oops}"), postB: map[string]any{"substitute": vars}},
		{name: "invalid var name", input: obj("x"), postB: map[string]any{"substitute": map[string]any{"bad-name": "1"}}, wantErr: "'bad-name' var name is invalid"},
		{name: "disabled label", input: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n  labels:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\ndata:\n  v: ${missing}\n", postB: map[string]any{"substitute": vars}, strict: true, want: "v: ${missing}"},
		{name: "disabled annotation", input: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\ndata:\n  v: ${missing}\n", postB: map[string]any{"substitute": vars}, strict: true, want: "v: ${missing}"},
		{name: "no vars no strategy leaves defaults", input: obj("${missing:=fallback}"), postB: map[string]any{}, want: "${missing:=fallback}"},
		{name: "strategy always", input: obj("${missing:=fallback}"), postB: map[string]any{"substituteStrategy": "Always"}, want: "value: fallback"},
		{name: "substitute wins over substituteFrom", input: obj("${name}"),
			postB: map[string]any{"substitute": map[string]any{"name": "inline"}, "substituteFrom": []any{map[string]any{"kind": "ConfigMap", "name": "vars"}}},
			src:   cm("vars", map[string]string{"name": "fromConfigMap"}), want: "value: inline"},
		{name: "later substituteFrom wins", input: obj("${name}"),
			postB: map[string]any{"substituteFrom": []any{map[string]any{"kind": "ConfigMap", "name": "vars"}, map[string]any{"kind": "Secret", "name": "secret"}}},
			src: &Sources{ConfigMaps: map[NamespacedName]map[string]string{{"flux-system", "vars"}: {"name": "cm"}},
				Secrets: map[NamespacedName]map[string][]byte{{"flux-system", "secret"}: {"name": []byte("sec")}}}, want: "value: sec"},
		{name: "newlines stripped", input: obj("${name}"),
			postB: map[string]any{"substituteFrom": []any{map[string]any{"kind": "ConfigMap", "name": "vars"}}},
			src:   cm("vars", map[string]string{"name": "two\nlines\n"}), want: "value: twolines"},
		// No variables at all and no substituteStrategy Always: Flux leaves the object alone.
		{name: "optional missing", input: obj("${name:=d}"),
			postB: map[string]any{"substituteFrom": []any{map[string]any{"kind": "Secret", "name": "nope", "optional": true}}}, strict: true, want: "value: ${name:=d}"},
		{name: "required missing", input: obj("${name:=d}"),
			postB: map[string]any{"substituteFrom": []any{map[string]any{"kind": "ConfigMap", "name": "nope"}}}, strict: true, wantErr: "substitute from 'ConfigMap/nope' error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.src
			if src == nil {
				src = &Sources{}
			}
			k := ks(tc.postB)
			want, fluxErr := fluxReference(t, tc.input, k, src, tc.strict)
			got, err := routeguard(t, tc.input, ks(tc.postB), src, tc.strict)
			if tc.wantErr != "" {
				if err == nil || fluxErr == nil {
					t.Fatalf("want errors from both, routeguard %v, flux %v", err, fluxErr)
				}
				if !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), fluxErr.Error()) {
					t.Fatalf("routeguard error %q should hold %q and Flux's %q", err, tc.wantErr, fluxErr)
				}
				if got != "" {
					t.Fatalf("output on error: %q", got)
				}
				return
			}
			if err != nil || fluxErr != nil {
				t.Fatalf("routeguard %v, flux %v", err, fluxErr)
			}
			if got != want {
				t.Fatalf("routeguard and Flux differ:\n--- routeguard\n%s--- flux\n%s", got, want)
			}
			if !strings.Contains(got, tc.want) {
				t.Fatalf("output lacks %q:\n%s", tc.want, got)
			}
		})
	}
}

func TestSecretValuesMasked(t *testing.T) {
	// A Secret value that breaks the YAML after substitution must not leak
	// into the error message.
	input := obj("${token}")
	src := &Sources{Secrets: map[NamespacedName]map[string][]byte{{"flux-system", "s"}: {"token": []byte("s3cr3t: [unclosed")}}}
	k := ks(map[string]any{"substituteFrom": []any{map[string]any{"kind": "Secret", "name": "s"}}})
	_, err := routeguard(t, input, k, src, true)
	if err == nil {
		t.Fatal("want an error")
	}
	if strings.Contains(err.Error(), "s3cr3t") {
		t.Fatalf("secret value leaked: %v", err)
	}
}

// TestExamples runs every manifest of examples/flux/apps through both paths
// with the example cluster's variables.
func TestExamples(t *testing.T) {
	root := filepath.Join("..", "..", "examples", "flux", "apps")
	src := cm("cluster-vars", map[string]string{"cluster_name": "prod-eu-1", "cluster_domain": "shop.example.com", "environment": "prod"})
	postB := map[string]any{
		"substitute":     map[string]any{"status_replicas": "2"},
		"substituteFrom": []any{map[string]any{"kind": "ConfigMap", "name": "cluster-vars"}, map[string]any{"kind": "Secret", "name": "cluster-secrets", "optional": true}},
	}
	n := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".yaml" || d.Name() == "kustomization.yaml" || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, strict := range []bool{true, false} {
			want, ferr := fluxReference(t, string(data), ks(postB), src, strict)
			got, err := routeguard(t, string(data), ks(postB), src, strict)
			if (err == nil) != (ferr == nil) || got != want {
				t.Errorf("%s (strict %v): routeguard and Flux differ: %v / %v\n%s\n%s", p, strict, err, ferr, got, want)
			}
			if strings.Contains(got, "${cluster") {
				t.Errorf("%s: variables left unsubstituted:\n%s", p, got)
			}
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 3 {
		t.Fatalf("only %d example files found under %s", n, root)
	}
}
