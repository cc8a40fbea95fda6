package apiserver

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestObjectName(t *testing.T) {
	core := func(k string) schema.GroupKind { return schema.GroupKind{Kind: k} }
	cr := schema.GroupKind{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute"}
	rbac := schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}
	for _, tc := range []struct {
		gk     schema.GroupKind
		name   string
		prefix bool
		want   string // "" valid
	}{
		{core("ConfigMap"), "web-config", false, ""},
		{core("ConfigMap"), "a/b", false, "may not contain '/'"},
		{core("ConfigMap"), "a\x1bb", false, "RFC 1123 subdomain"},
		{core("ConfigMap"), strings.Repeat("x", 100000), false, "must be no more than 253 characters"},
		{core("Service"), "Upper.dots", false, "RFC 1123 label"}, // RelaxedServiceNameValidation is on in 1.37
		{core("Service"), "web", false, ""},
		{core("Namespace"), "team.a", false, "must not contain dots"},
		{rbac, "system:controller:web", false, ""},
		{rbac, "a/b", false, "may not contain '/'"},
		{rbac, "a%2Fb", false, "may not contain '%'"},
		{cr, "web", false, ""},
		{cr, "Web_Route", false, "RFC 1123 subdomain"},
		{cr, "..", false, "may not be '..'"},
		{schema.GroupKind{Group: "route.openshift.io", Kind: "Route"}, "Web_Route", false, ""},
		{schema.GroupKind{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"}, "node:csr", false, ""},
		{core("ConfigMap"), "app-${CLUSTER}", false, ""},
		{core("Pod"), "job-", true, ""},
		{core("Pod"), "Job-", true, "RFC 1123 subdomain"},
	} {
		msgs := ObjectName(tc.gk, tc.name, tc.prefix)
		got := strings.Join(msgs, "; ")
		if tc.want == "" && len(msgs) > 0 || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("ObjectName(%s, %.30q, %v) = %q, want %q", tc.gk, tc.name, tc.prefix, got, tc.want)
		}
	}
}
