package health

import (
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// TestArgoCDPatchWithKustomize applies the bundle with Kustomize itself, as
// docs/health.md tells users to, onto an argocd-cm as Argo CD's install.yaml
// has it (no namespace; the kustomization sets one) and onto one that names
// its namespace (then the patch needs --namespace).
func TestArgoCDPatchWithKustomize(t *testing.T) {
	checks, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, baseNamespace, patchNamespace string
		wantErr                             bool
	}{
		{name: "install.yaml base", baseNamespace: "", patchNamespace: ""},
		{name: "base with namespace, patch with --namespace", baseNamespace: "argocd", patchNamespace: "argocd"},
		{name: "base with namespace, patch without", baseNamespace: "argocd", patchNamespace: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			patch, err := ArgoCDPatch(checks, tt.patchNamespace)
			if err != nil {
				t.Fatal(err)
			}
			base := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\n"
			if tt.baseNamespace != "" {
				base += "  namespace: " + tt.baseNamespace + "\n"
			}
			base += "  labels:\n    app.kubernetes.io/part-of: argocd\ndata:\n  url: https://argocd.example.com\n"
			fs := filesys.MakeFsInMemory()
			files := map[string]string{
				"/app/kustomization.yaml":     "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: argocd\nresources:\n  - argocd-cm.yaml\npatches:\n  - path: routeguard-health.yaml\n",
				"/app/argocd-cm.yaml":         base,
				"/app/routeguard-health.yaml": string(patch),
			}
			for name, content := range files {
				if err := fs.WriteFile(name, []byte(content)); err != nil {
					t.Fatal(err)
				}
			}
			resMap, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, "/app")
			if tt.wantErr {
				if err == nil {
					t.Fatal("kustomize matched a namespace-less patch to a namespaced base; docs/health.md says it does not")
				}
				return
			}
			if err != nil {
				t.Fatalf("kustomize build with the patch: %v", err)
			}
			if resMap.Size() != 1 {
				t.Fatalf("%d resources, want the one argocd-cm", resMap.Size())
			}
			res := resMap.Resources()[0]
			data := res.GetDataMap()
			if data["url"] != "https://argocd.example.com" || res.GetNamespace() != "argocd" {
				t.Errorf("the patch dropped the url key or the namespace: %v", res.GetNamespace())
			}
			for _, c := range checks {
				if data[c.ConfigMapKey()] != c.Lua {
					t.Errorf("%s missing or changed after kustomize build", c.ConfigMapKey())
				}
			}
		})
	}
}
