package apiserver

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestParseKubeVersion(t *testing.T) {
	for in, want := range map[string]KubeVersion{"": {}, "1.31": {1, 31}, "v1.31.2": {1, 31}, "1.29.3-eks-1": {1, 29}, "v1.30.0+k3s1": {1, 30}} {
		got, err := ParseKubeVersion(in)
		if err != nil || got != want {
			t.Errorf("ParseKubeVersion(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"latest", "1", "v0.31", "x1.31"} {
		if _, err := ParseKubeVersion(bad); err == nil {
			t.Errorf("ParseKubeVersion(%q) accepted", bad)
		}
	}
}

func TestBuiltinAPI(t *testing.T) {
	gvk := func(g, v, k string) schema.GroupVersionKind {
		return schema.GroupVersionKind{Group: g, Version: v, Kind: k}
	}
	tests := []struct {
		name       string
		gvk        schema.GroupVersionKind
		kube       string
		served     bool
		deprecated bool
		certain    bool
		detail     string
	}{
		{"GA version", gvk("apps", "v1", "Deployment"), "1.29", true, false, true, ""},
		{"removed beta, newer cluster", gvk("extensions", "v1beta1", "Ingress"), "1.22", false, false, true, "removed in 1.22; use networking.k8s.io/v1 Ingress"},
		{"removed beta, older cluster", gvk("extensions", "v1beta1", "Ingress"), "1.21", true, true, true, "deprecated in Kubernetes 1.14, removed in 1.22"},
		{"removed beta, version unknown", gvk("extensions", "v1beta1", "Ingress"), "", false, false, false, "removed in 1.22"},
		{"beta before it existed", gvk("networking.k8s.io", "v1beta1", "IPAddress"), "1.20", false, false, true, "introduced in Kubernetes 1.31"},
		{"deleted from Kubernetes, newest release", gvk("autoscaling", "v2beta2", "HorizontalPodAutoscaler"), "1.37", false, false, true, "defines no such API version"},
		{"deleted from Kubernetes, older cluster", gvk("autoscaling", "v2beta2", "HorizontalPodAutoscaler"), "1.24", false, false, false, "an older release may still serve it"},
	}
	for _, tc := range tests {
		v, err := ParseKubeVersion(tc.kube)
		if err != nil {
			t.Fatal(err)
		}
		st := BuiltinAPI(tc.gvk, v)
		if st.Served != tc.served || st.Deprecated != tc.deprecated || st.Certain != tc.certain || !strings.Contains(st.Detail, tc.detail) {
			t.Errorf("%s: %+v", tc.name, st)
		}
	}
}

func TestIsBuiltinGroup(t *testing.T) {
	for g, want := range map[string]bool{"": true, "apps": true, "networking.k8s.io": true, "apiextensions.k8s.io": true,
		"gateway.networking.k8s.io": false, "networking.istio.io": false, "cert-manager.io": false} {
		if IsBuiltinGroup(g) != want {
			t.Errorf("IsBuiltinGroup(%q) = %v", g, !want)
		}
	}
}
