package flux

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	"github.com/fluxcd/pkg/sourceignore"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/manifest"
)

// copyTree copies src into dst the way source-controller packs a
// GitRepository artifact with its default exclusions (kustomize-controller
// builds in a copy of that artifact; so does the reference here).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	matcher := sourceignore.NewDefaultMatcher(nil, nil)
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel != "." && matcher.Match(strings.Split(filepath.ToSlash(rel), "/"), d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// kubeObjects turns the inventory's ConfigMaps and Secrets into API objects
// for a controller-runtime client, as the API server would store them.
func kubeObjects(t *testing.T, inv *Inventory) []client.Object {
	t.Helper()
	var out []client.Object
	for _, o := range inv.ConfigMaps {
		cm := &corev1.ConfigMap{}
		data, _ := json.Marshal(o.Body)
		if err := json.Unmarshal(data, cm); err != nil {
			t.Fatal(err)
		}
		out = append(out, cm)
	}
	for _, o := range inv.Secrets {
		s := &corev1.Secret{}
		data, _ := json.Marshal(o.Body)
		if err := json.Unmarshal(data, s); err != nil {
			t.Fatal(err)
		}
		if s.Data == nil {
			s.Data = map[string][]byte{}
		}
		for k, v := range s.StringData {
			s.Data[k] = []byte(v)
		}
		out = append(out, s)
	}
	return out
}

// reference builds ks the way kustomize-controller's build() does, with
// Flux's packages only: the generator writes kustomization.yaml into a
// copy of the repository, SecureBuild builds it, SubstituteVariables runs
// per resource against a controller-runtime client, then commonMetadata.
func reference(t *testing.T, inv *Inventory, workDir string, ks *manifest.Object) []string {
	t.Helper()
	u := unstructured.Unstructured{Object: ks.Body}
	path, _, _ := unstructured.NestedString(ks.Body, "spec", "path")
	dirPath := filepath.Join(workDir, path)
	if _, err := fluxkustomize.NewGenerator(workDir, u).WriteFile(dirPath); err != nil {
		t.Fatalf("generator: %v", err)
	}
	m, err := fluxkustomize.SecureBuild(workDir, dirPath, false)
	if err != nil {
		t.Fatalf("SecureBuild: %v", err)
	}
	c := fake.NewClientBuilder().WithObjects(kubeObjects(t, inv)...).Build()
	var out []string
	for _, res := range m.Resources() {
		if _, ok := ks.Body["spec"].(map[string]any)["postBuild"]; ok {
			got, err := fluxkustomize.SubstituteVariables(context.Background(), c, u, res, fluxkustomize.SubstituteWithStrict(true))
			if err != nil {
				t.Fatalf("SubstituteVariables: %v", err)
			}
			if got != nil {
				res = got
			}
		}
		body, err := res.Map()
		if err != nil {
			t.Fatal(err)
		}
		if cm, ok := ks.Body["spec"].(map[string]any)["commonMetadata"].(map[string]any); ok {
			md := body["metadata"].(map[string]any)
			for _, field := range []string{"labels", "annotations"} {
				vals, _ := cm[field].(map[string]any)
				if len(vals) == 0 {
					continue
				}
				cur, _ := md[field].(map[string]any)
				if cur == nil {
					cur = map[string]any{}
					md[field] = cur
				}
				for k, v := range vals {
					cur[k] = v
				}
			}
		}
		out = append(out, encode(t, body))
	}
	return out
}

func encode(t *testing.T, body map[string]any) string {
	t.Helper()
	data, err := yaml.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestKustomizationsMatchFlux(t *testing.T) {
	tests := []struct {
		name       string
		repo       string // repository root
		cluster    string // cluster directory, relative to repo
		copy       string // what the reference copies (relative to repo)
		wantBuilds int
	}{
		{name: "examples", repo: "../..", cluster: "examples/flux/clusters/prod", copy: "examples", wantBuilds: 3},
		{name: "testdata", repo: "testdata/repo", cluster: "clusters/good", copy: ".", wantBuilds: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inv, err := Scan(tc.repo, filepath.Join(tc.repo, tc.cluster))
			if err != nil {
				t.Fatal(err)
			}
			if len(inv.Kustomizations) != tc.wantBuilds {
				t.Fatalf("%d Kustomizations under %s, want %d", len(inv.Kustomizations), tc.cluster, tc.wantBuilds)
			}
			workDir := t.TempDir()
			copyTree(t, filepath.Join(tc.repo, tc.copy), filepath.Join(workDir, tc.copy))
			for _, ks := range inv.Kustomizations {
				set, err := inv.BuildKustomization(context.Background(), ks, Options{Strict: true})
				if err != nil {
					t.Fatalf("%s: %v", ks, err)
				}
				var got []string
				for _, o := range set.Objects() {
					got = append(got, encode(t, o.Body))
				}
				want := reference(t, inv, workDir, ks)
				if strings.Join(got, "---\n") != strings.Join(want, "---\n") {
					t.Errorf("%s: routeguard differs from Flux's generator + build + substitution:\n--- routeguard\n%s\n--- flux\n%s",
						ks, strings.Join(got, "---\n"), strings.Join(want, "---\n"))
				}
				for _, o := range set.Objects() {
					if o.Source.Line == 0 || strings.HasPrefix(o.Source.File, "/") {
						t.Errorf("%s: %s has no repository file:line (%s)", ks, o, o.Source)
					}
				}
			}
		})
	}
}
