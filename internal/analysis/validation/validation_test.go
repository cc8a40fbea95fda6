package validation

import (
	"context"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/analysistest"
	"github.com/routeguard/routeguard/internal/crds"
)

func clusterCRDs(t *testing.T) analysis.Cluster {
	t.Helper()
	objs, err := crds.LoadDir("testdata/cluster-crds")
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 {
		t.Fatalf("loaded %d CRDs", len(objs))
	}
	return analysis.Cluster{CRDs: objs}
}

func TestCustomResources(t *testing.T) {
	analysistest.Run(t, CustomResources{}, []analysistest.Case{
		{Name: "valid objects", Files: []string{"valid.yaml"}},
		{Name: "schema and CEL rules of bundled CRDs", Files: []string{"crd_violations.yaml"},
			Want: []string{"RG5002 HTTPRoute apps/relative-path", "RG5001 HTTPRoute apps/ip-hostname", "RG5001 HTTPRoute apps/ip-hostname",
				"RG5001 HTTPRoute apps/string-rules", "RG5002 VirtualService apps/bad-timeout", "RG5001 Gateway apps/port-word"}},
		{Name: "unknown field in a custom resource", Files: []string{"unknown_fields.yaml"},
			Want: []string{"RG5005 HTTPRoute apps/indented"}},
		{Name: "no CRD known", Files: []string{"no_schema.yaml"}, Want: []string{"RG5007 Certificate apps/shop"}},
		{Name: "no CRD known: once per kind, on its first object", Files: []string{"no_schema_many.yaml"},
			Want: []string{"RG5007 Certificate apps/shop", "RG5007 ExternalSecret flux-system/apps"}},
		{Name: "Flux and Argo CD objects against their bundled CRDs", Files: []string{"flux_argocd.yaml"},
			Want: []string{"RG5001 Kustomization flux-system/no-prune", "RG5001 HelmRelease shop/bad-interval", "RG5005 Application argocd/typo",
				"RG5001 GitRepository flux-system/no-url", "RG5001 Alert flux-system/bad-source"}},
		{Name: "a Flux Kustomization awaiting substitution is not judged", Files: []string{"flux_kustomization_variables.yaml"},
			Cluster: analysis.Cluster{SubstitutedOnApply: true},
			Want:    []string{"RG5008 Kustomization flux-system/apps"}},
		{Name: "CRD from the cluster (--crd-dir)", Files: []string{"no_schema.yaml"}, Cluster: clusterCRDs(t)},
		{Name: "CRD rendered with the app", Files: []string{"app_crd.yaml"},
			Want: []string{"RG5002 Widget apps/too-big", "RG5001 Widget apps/zero", "RG5005 Widget apps/zero"}},
		{Name: "CRD rendered by a context path", Files: []string{"app_crd_objects.yaml"}, Context: []string{"app_crd.yaml"},
			Want: []string{"RG5001 Widget apps/tiny"}},
		{Name: "experimental field, channel unknown", Files: []string{"experimental.yaml"},
			Want: []string{"RG5009 HTTPRoute apps/sticky"}},
		{Name: "experimental field, experimental channel", Files: []string{"experimental.yaml"},
			Cluster: analysis.Cluster{GatewayAPIChannel: "experimental"}},
		{Name: "experimental field, standard channel", Files: []string{"experimental.yaml"},
			Cluster: analysis.Cluster{GatewayAPIChannel: "standard"}, Want: []string{"RG5005 HTTPRoute apps/sticky"}},
		{Name: "versions not served are not validated", Files: []string{"versions.yaml"}},
		{Name: "values awaiting Flux substitution are not judged; other mistakes are", Files: []string{"flux_variables.yaml"},
			Cluster: analysis.Cluster{SubstitutedOnApply: true},
			Want:    []string{"RG5008 HTTPRoute apps/media", "RG5008 HTTPRoute apps/broken", "RG5001 HTTPRoute apps/broken"}},
		{Name: "values applied as they are (cmp generate, flux build) are judged", Files: []string{"flux_variables.yaml"},
			Want: []string{"RG5001 HTTPRoute apps/media", "RG5001 HTTPRoute apps/media", "RG5001 HTTPRoute apps/broken", "RG5001 HTTPRoute apps/broken"}},
		{Name: "SOPS-encrypted objects (decrypted by Flux before they are applied)", Files: []string{"sops_encrypted.yaml"}},
		{Name: "placeholders for variables only the cluster holds are not judged", Files: []string{"placeholders.yaml"},
			Want: []string{"RG5008 HTTPRoute apps/media"}},
	})
}

func TestBuiltinKinds(t *testing.T) {
	analysistest.Run(t, BuiltinKinds{}, []analysistest.Case{
		{Name: "valid objects", Files: []string{"valid.yaml"}},
		{Name: "SOPS-encrypted objects (decrypted by Flux before they are applied)", Files: []string{"sops_encrypted.yaml"}},
		{Name: "invalid built-in objects", Files: []string{"builtin_invalid.yaml"},
			Want: []string{"RG5006 Service apps/big-port", "RG5006 Service apps/big-port", "RG5006 Ingress apps/path-type",
				"RG5006 Deployment apps/selector", "RG5006 Service apps/Shop_Frontend", "RG5006 Service apps/ports-map"}},
		{Name: "unknown field in a built-in kind", Files: []string{"unknown_fields.yaml"},
			Want: []string{"RG5005 Ingress apps/typo", "RG5006 Ingress apps/typo"}},
		{Name: "CRDs validated as the API server validates CRDs", Files: []string{"app_crd.yaml"},
			Want: []string{"RG5006 CustomResourceDefinition gadgets"}},
		{Name: "kinds decoded strictly only", Files: []string{"builtin_decoded.yaml"},
			Want: []string{"RG5005 Job apps/migrate", "RG5006 Pod apps/debug"}},
		{Name: "placeholders for variables only the cluster holds are not judged; other mistakes are", Files: []string{"placeholders.yaml"},
			Want: []string{"RG5008 NetworkPolicy apps/vpn", "RG5006 NetworkPolicy apps/vpn"}},
	})
}

func TestAPIVersions(t *testing.T) {
	analysistest.Run(t, APIVersions{}, []analysistest.Case{
		{Name: "served versions", Files: []string{"valid.yaml"}},
		{Name: "SOPS-encrypted objects, apiVersion and kind too", Files: []string{"sops_encrypted.yaml"}},
		{Name: "Flux and Argo CD versions against their bundled CRDs", Files: []string{"flux_argocd.yaml"},
			Want: []string{"RG5003 HelmRelease shop/old-version"}},
		{Name: "removed and deprecated versions, cluster version unknown", Files: []string{"versions.yaml"},
			Want: []string{"RG5003 HTTPRoute apps/old-route", "RG5004 TCPRoute apps/tcp", "RG5009 TCPRoute apps/tcp",
				"RG5003 Ingress apps/old-ingress", "RG5003 HorizontalPodAutoscaler apps/old-hpa"}},
		{Name: "an old cluster still serves them", Files: []string{"versions.yaml"},
			Cluster: analysis.Cluster{KubeVersion: "v1.21.4", GatewayAPIChannel: "experimental"},
			Want: []string{"RG5003 HTTPRoute apps/old-route", "RG5004 TCPRoute apps/tcp", "RG5004 Ingress apps/old-ingress",
				"RG5003 HorizontalPodAutoscaler apps/old-hpa"}}, // a warning: Kubernetes 1.37 no longer defines it
		{Name: "the cluster's CRDs serve the old route", Files: []string{"versions.yaml"},
			Cluster: analysis.Cluster{CRDs: clusterCRDs(t).CRDs, KubeVersion: "1.37", GatewayAPIChannel: "standard"},
			Want:    []string{"RG5003 TCPRoute apps/tcp", "RG5003 Ingress apps/old-ingress", "RG5003 HorizontalPodAutoscaler apps/old-hpa"}},
		{Name: "API versions the cluster serves", Files: []string{"valid.yaml"},
			Cluster: analysis.Cluster{APIVersions: []string{"v1", "apps/v1", "networking.k8s.io/v1/Ingress", "gateway.networking.k8s.io/v1", "networking.istio.io/v1beta1"}},
			Want:    []string{"RG5003 VirtualService apps/web", "RG5003 DestinationRule apps/web"}},
		{Name: "a CRD of the app defines an API version the cluster lacks", Files: []string{"app_crd.yaml"},
			Cluster: analysis.Cluster{APIVersions: []string{"v1", "apiextensions.k8s.io/v1"}}},
	})
}

// TestSeverities checks the findings that depend on what is known of the
// cluster: a removed built-in version is an error only when the cluster's
// version says so.
func TestSeverities(t *testing.T) {
	for _, tc := range []struct {
		kube string
		want analysis.Severity
	}{{"", analysis.SeverityWarning}, {"1.37", analysis.SeverityError}, {"1.26", analysis.SeverityError}} {
		res := analysistest.AnalyzeIn(t, APIVersions{}, []string{"versions.yaml"}, nil, analysis.Cluster{KubeVersion: tc.kube})
		for _, f := range res.Findings {
			if f.Object.Name == "old-ingress" && f.Severity != tc.want {
				t.Errorf("kube version %q: %s %s is %s, want %s", tc.kube, f.Code, f.Object, f.Severity, tc.want)
			}
		}
	}
}

// TestMessagesAndLines checks that findings quote the API server and point
// at the field's line.
func TestMessagesAndLines(t *testing.T) {
	for _, tc := range []struct {
		a     analysis.Analyzer
		file  string
		obj   string
		code  string
		line  int
		quote string
	}{
		{CustomResources{}, "crd_violations.yaml", "HTTPRoute apps/relative-path", "RG5002", 13,
			"spec.rules[0].matches[0].path: Invalid value: value must be an absolute path and start with '/' when type one of ['Exact', 'PathPrefix'] (x-kubernetes-validations rule of the Gateway API v1.6.3 CRD (standard channel, bundled))"},
		{CustomResources{}, "crd_violations.yaml", "HTTPRoute apps/ip-hostname", "RG5001", 34,
			"spec.rules[0].backendRefs[0].weight: Invalid value: 2000000: spec.rules[0].backendRefs[0].weight in body should be less than or equal to 1000000"},
		{CustomResources{}, "crd_violations.yaml", "VirtualService apps/bad-timeout", "RG5002", 54, "must be a valid duration greater than 1ms"},
		{CustomResources{}, "crd_violations.yaml", "HTTPRoute apps/string-rules", "RG5001", 44, "its CEL rules were not evaluated"},
		{CustomResources{}, "unknown_fields.yaml", "HTTPRoute apps/indented", "RG5005", 21, `unknown field "spec.parentRefs[0].hostnames"`},
		{BuiltinKinds{}, "builtin_invalid.yaml", "Ingress apps/path-type", "RG5006", 25,
			`spec.rules[0].http.paths[0].pathType: Unsupported value: "Prefixx": supported values: "Exact", "ImplementationSpecific", "Prefix"`},
		{BuiltinKinds{}, "builtin_invalid.yaml", "Deployment apps/selector", "RG5006", 39, "`selector` does not match template `labels`"},
		{BuiltinKinds{}, "builtin_invalid.yaml", "Service apps/ports-map", "RG5006", 61, "spec.ports: Invalid value: a map where a list (of ServicePort) belongs"},
		{BuiltinKinds{}, "unknown_fields.yaml", "Ingress apps/typo", "RG5005", 10, `unknown field "spec.rulez"`},
		{APIVersions{}, "versions.yaml", "HTTPRoute apps/old-route", "RG5003", 2,
			"serves gateway.networking.k8s.io/v1, gateway.networking.k8s.io/v1beta1"},
		{APIVersions{}, "versions.yaml", "Ingress apps/old-ingress", "RG5003", 24, "removed in 1.22; use networking.k8s.io/v1 Ingress"},
	} {
		res := analysistest.Analyze(t, tc.a, []string{tc.file}, nil)
		found := false
		for _, f := range res.Findings {
			if f.Object.String() != tc.obj || f.Code != tc.code || !strings.Contains(f.Message, tc.quote) {
				continue
			}
			found = true
			if f.Source.Line != tc.line {
				t.Errorf("%s %s: line %d, want %d", tc.code, tc.obj, f.Source.Line, tc.line)
			}
		}
		if !found {
			t.Errorf("no %s %s quoting %q:\n%s", tc.code, tc.obj, tc.quote, analysistest.Messages(res.Findings))
		}
	}
}

func TestNoSchemaSaidOncePerKind(t *testing.T) {
	res, err := analysis.RunAnalyzers(context.Background(), analysis.RunOptions{Set: analysistest.Load(t, "no_schema_many.yaml"), Analyzers: []analysis.Analyzer{CustomResources{}}})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, f := range res.Findings {
		msgs = append(msgs, f.Object.Name+": "+f.Message)
	}
	if len(msgs) != 2 || !strings.Contains(msgs[0], "said once for the 2 objects of this kind") || strings.Contains(msgs[1], "said once") {
		t.Errorf("findings:\n%s", strings.Join(msgs, "\n"))
	}
}

// TestControllerVersionsAreWarnings: an API version the bundled Flux or
// Argo CD CRD no longer serves is a warning (the cluster may run an older
// release that serves it), never an error; Gateway API's stays an error.
func TestControllerVersionsAreWarnings(t *testing.T) {
	res, err := analysis.RunAnalyzers(context.Background(), analysis.RunOptions{Set: analysistest.Load(t, "flux_argocd.yaml"), Analyzers: []analysis.Analyzer{APIVersions{}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].Severity != analysis.SeverityWarning || !strings.Contains(res.Findings[0].Message, "helm-controller v1.6.5") {
		t.Errorf("findings: %+v", res.Findings)
	}
}
