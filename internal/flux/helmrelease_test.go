package flux

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
)

// field reads a dotted path ("spec.replicas", "metadata.labels.app") from a body.
func field(body map[string]any, path string) any {
	var cur any = body
	for _, p := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[p]
		case []any:
			if len(c) == 0 {
				return nil
			}
			cur = c[0].(map[string]any)[p]
		default:
			return nil
		}
	}
	return cur
}

func TestHelmReleases(t *testing.T) {
	tests := []struct {
		name    string
		repo    string
		cluster string
		release string // namespace/name of the HelmRelease
		object  manifest.Key
		want    map[string]any
		skipped string
	}{
		{
			name: "example backend: valuesFiles, valuesFrom, values, patches, images", repo: "../..", cluster: "examples/flux/clusters/prod",
			release: "shop-prod/backend",
			object:  manifest.Key{Group: "apps", Kind: "Deployment", Namespace: "shop-prod", Name: "backend"},
			want: map[string]any{
				"spec.replicas":                                        int64(8),                                         // valuesFrom ConfigMap over values-prod.yaml's 6
				"spec.template.spec.containers.image":                  "registry.example.com/mirror/shop-backend:2.7.2", // values tag + post-renderer image
				"spec.template.spec.containers.resources.requests.cpu": "1",                                              // values-prod.yaml
				"spec.template.metadata.annotations.traffic.sidecar.istio.io/excludeOutboundPorts": nil,
				"metadata.labels.helm.toolkit.fluxcd.io/name":                                      nil,
			},
		},
		{
			name: "chartRef to HelmChart, targetNamespace release name, targetPath", repo: "testdata/repo", cluster: "clusters/good",
			release: "flux-system/web",
			object:  manifest.Key{Group: "apps", Kind: "Deployment", Namespace: "web", Name: "web-web"},
			want: map[string]any{
				"spec.replicas":                       int64(2),           // spec.values over valuesFrom's 5
				"spec.template.spec.containers.image": "nginx:1.27",       // post-renderer newTag over valuesFrom's nginx:1.25
				"metadata.labels.greeting":            "hi from a secret", // Secret stringData via targetPath
				"metadata.labels.team":                "web",              // spec.commonMetadata
			},
		},
		{name: "remote chart", repo: "testdata/repo", cluster: "clusters/good", release: "flux-system/remote", skipped: "HelmRepository, which cannot be rendered offline"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inv, err := Scan(tc.repo, filepath.Join(tc.repo, tc.cluster))
			if err != nil {
				t.Fatal(err)
			}
			ns, name, _ := strings.Cut(tc.release, "/")
			objs := inv.Select(name, ns)
			if len(objs) != 1 {
				t.Fatalf("%d objects named %s", len(objs), tc.release)
			}
			b, err := inv.BuildObject(context.Background(), objs[0], Options{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			if tc.skipped != "" {
				if !strings.Contains(b.Skipped, tc.skipped) || b.Set != nil {
					t.Fatalf("skipped %q, want %q", b.Skipped, tc.skipped)
				}
				return
			}
			o, ok := b.Set.Get(tc.object)
			if !ok {
				var keys []string
				for _, o := range b.Set.Objects() {
					keys = append(keys, o.String())
				}
				t.Fatalf("no %s in %v", tc.object, keys)
			}
			for path, want := range tc.want {
				got := field(o.Body, path)
				if want == nil {
					continue // dotted keys checked below
				}
				if got != want {
					t.Errorf("%s = %#v, want %#v", path, got, want)
				}
			}
			if got := o.Labels()[HelmReleaseNameLabel]; got != name {
				t.Errorf("origin label %s = %q, want %q", HelmReleaseNameLabel, got, name)
			}
			if got := o.Labels()[HelmReleaseNamespaceLabel]; got != ns {
				t.Errorf("origin label %s = %q, want %q", HelmReleaseNamespaceLabel, got, ns)
			}
			if _, ok := tc.want["spec.template.metadata.annotations.traffic.sidecar.istio.io/excludeOutboundPorts"]; ok {
				ann := field(o.Body, "spec.template.metadata.annotations").(map[string]any)
				if ann["traffic.sidecar.istio.io/excludeOutboundPorts"] != "9090" {
					t.Errorf("post-renderer patch not applied: %v", ann)
				}
			}
		})
	}
}
