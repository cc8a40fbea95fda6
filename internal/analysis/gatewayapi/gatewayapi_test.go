package gatewayapi

import (
	"maps"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/analysistest"
)

func TestParentRefs(t *testing.T) {
	base := []string{"gateway.yaml", "services.yaml"}
	with := func(f ...string) []string { return append(append([]string{}, base...), f...) }
	analysistest.Run(t, ParentRefs{}, []analysistest.Case{
		{Name: "attaches by section and port, wildcard hostname", Files: with("route_ok.yaml")},
		{Name: "gateway missing in a rendered namespace", Files: with("route_missing_gateway.yaml"),
			Want: []string{"RG1001 HTTPRoute apps/web"}},
		{Name: "gateway in a namespace not rendered", Files: with("route_outside_gateway.yaml"),
			Want: []string{"RG0001 HTTPRoute apps/web"}},
		{Name: "gateway resolved by context path", Files: with("route_outside_gateway.yaml"),
			Context: []string{"context_edge.yaml"}},
		{Name: "context renders the namespace but not the gateway", Files: with("route_outside_gateway.yaml"),
			Context: []string{"context_edge_empty.yaml"}, Want: []string{"RG1001 HTTPRoute apps/web"}},
		{Name: "sectionName names no listener", Files: with("route_bad_section.yaml"),
			Want: []string{"RG1002 HTTPRoute apps/web"}},
		{Name: "port matches no listener", Files: with("route_bad_port.yaml"),
			Want: []string{"RG1003 HTTPRoute apps/web"}},
		{Name: "TCPRoute on an HTTP listener", Files: with("route_tcp_on_http.yaml"),
			Want: []string{"RG1004 TCPRoute apps/db"}},
		{Name: "allowedRoutes.kinds excludes the kind", Files: with("route_kind_excluded.yaml"),
			Want: []string{"RG1006 HTTPRoute apps/web"}},
		{Name: "namespaces Selector and Same deny", Files: with("route_namespace_denied.yaml"),
			Want: []string{"RG1005 HTTPRoute other/web", "RG1005 TLSRoute apps/passthrough"}},
		{Name: "namespaces Selector admits a labelled Namespace", Files: with("route_namespace_selected.yaml")},
		{Name: "hostnames do not intersect", Files: with("route_hostname_mismatch.yaml"),
			Want: []string{"RG1007 HTTPRoute apps/web"}},
		{Name: "no parentRefs", Files: with("route_no_parents.yaml"),
			Want: []string{"RG1008 HTTPRoute apps/orphan"}},
		{Name: "default Gateways elsewhere", Files: with("route_default_gateways.yaml"),
			Want: []string{"RG0001 HTTPRoute apps/defaulted"}},
		{Name: "default Gateway rendered", Files: with("route_default_gateways.yaml", "gateway_default_scope.yaml")},
	})
}

func TestBackendRefs(t *testing.T) {
	base := []string{"gateway.yaml", "services.yaml"}
	with := func(f ...string) []string { return append(append([]string{}, base...), f...) }
	analysistest.Run(t, BackendRefs{}, []analysistest.Case{
		{Name: "services and ports exist", Files: with("route_ok.yaml")},
		{Name: "service missing", Files: with("backend_missing.yaml"), Want: []string{"RG1101 HTTPRoute apps/web"}},
		{Name: "group core: warned, and the Service checked", Files: with("backend_group_core.yaml"),
			Want: []string{"RG0006 HTTPRoute apps/kong", "RG0006 HTTPRoute apps/kong", "RG1101 HTTPRoute apps/kong"}},
		{Name: "service lacks the port", Files: with("backend_bad_port.yaml"), Want: []string{"RG1102 GRPCRoute apps/web"}},
		{Name: "no port", Files: with("backend_no_port.yaml"), Want: []string{"RG1105 HTTPRoute apps/web"}},
		{Name: "all weights zero in one rule only", Files: with("backend_zero_weights.yaml"),
			Want: []string{"RG1104 HTTPRoute apps/web"}},
		{Name: "cross-namespace without grant", Files: with("backend_cross_namespace.yaml"),
			Want: []string{"RG1103 HTTPRoute other/web"}},
		{Name: "cross-namespace with grant", Files: with("backend_cross_namespace.yaml", "grant_apps.yaml")},
		{Name: "grant for another service name", Files: with("backend_cross_namespace.yaml", "grant_wrong_kind.yaml"),
			Want: []string{"RG1103 HTTPRoute other/web"}},
		{Name: "grant found among context objects", Files: with("backend_cross_namespace.yaml"),
			Context: []string{"grant_apps.yaml"}},
		{Name: "mirror backends checked too", Files: with("backend_mirror.yaml"),
			Want: []string{"RG1101 HTTPRoute apps/mirrored"}},
		{Name: "namespace not rendered, other backend kinds skipped", Files: with("backend_outside.yaml"),
			Want: []string{"RG0001 HTTPRoute apps/web"}},
		{Name: "ExternalName Service: the port is used as written", Files: with("backend_externalname.yaml")},
		{Name: "Services an operator may make for its resources cannot be checked; a typo beside no such resource can", Files: with("backend_operator_made.yaml"),
			Want: []string{"RG0001 HTTPRoute apps/metrics", "RG0001 HTTPRoute apps/pg", "RG0001 HTTPRoute apps/typo", "RG1101 HTTPRoute web/typo"}},
	})
}

func TestListeners(t *testing.T) {
	analysistest.Run(t, Listeners{}, []analysistest.Case{
		{Name: "valid gateway", Files: []string{"gateway.yaml"}},
		{Name: "duplicate names, collisions, missing certificates", Files: []string{"listeners_bad.yaml"},
			Want: []string{"RG1201 Gateway infra/bad", "RG1202 Gateway infra/bad",
				"RG1203 Gateway infra/bad", "RG1203 Gateway infra/bad"}},
		{Name: "cross-namespace certificates without grants", Files: []string{"listeners_cross_cert.yaml"},
			Want: []string{"RG0001 Gateway infra/shared", "RG1204 Gateway infra/shared"}},
		{Name: "cross-namespace certificate with grant", Files: []string{"listeners_cross_cert.yaml", "grant_certs.yaml"},
			Want: []string{"RG0001 Gateway infra/shared"}},
		{Name: "certificates from an annotation or tls.options; an HTTPS listener without tls", Files: []string{"listeners_tls_sources.yaml"},
			Want: []string{"RG1203 Gateway infra/kong"}},
	})
}

// TestListenerNoCertSeverity: a tls block in Terminate mode without
// certificates is refused by the CRD (an error); an HTTPS listener without
// tls is accepted, and serves where the implementation has a certificate
// of its own (a warning).
func TestListenerNoCertSeverity(t *testing.T) {
	want := map[string]analysis.Severity{ // object and listener
		`infra/kong listener "https"`:        analysis.SeverityWarning, // no tls
		`infra/bad listener "https"`:         analysis.SeverityWarning, // no tls
		`infra/bad listener "tls-terminate"`: analysis.SeverityError,   // tls, Terminate, nothing else
	}
	got := map[string]analysis.Severity{}
	for _, file := range []string{"listeners_tls_sources.yaml", "listeners_bad.yaml"} {
		for _, f := range analysistest.AnalyzeIn(t, Listeners{}, []string{file}, nil, analysis.Cluster{}).Findings {
			if f.Code == analysis.CodeListenerNoCert {
				listener, _, _ := strings.Cut(f.Message, " (")
				got[f.Object.Namespace+"/"+f.Object.Name+" "+listener] = f.Severity
			}
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("RG1203 severities:\n got %v\nwant %v", got, want)
	}
}

func TestRouteConflicts(t *testing.T) {
	analysistest.Run(t, RouteConflicts{}, []analysistest.Case{
		{Name: "distinct routes", Files: []string{"gateway.yaml", "routes_distinct.yaml"}},
		{Name: "same hostname and match on one listener", Files: []string{"gateway.yaml", "conflict_routes.yaml"},
			Want: []string{"RG1301 HTTPRoute apps/b"}},
		{Name: "GRPC method claimed twice, older route wins", Files: []string{"gateway.yaml", "conflict_grpc_timestamps.yaml"},
			Want: []string{"RG1301 GRPCRoute apps/a-newer"}},
	})
}

func TestHostnamesIntersect(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"foo.example.com", "*.example.com", true},
		{"a.b.example.com", "*.example.com", true},
		{"example.com", "*.example.com", false},
		{"*.example.com", "*.b.example.com", true},
		{"*.example.com", "*.example.org", false},
		{"foo.example.com", "", true},
		{"foo.example.com", "bar.example.com", false},
		{"foo.example.com", "foo.example.com", true},
	}
	for _, tc := range tests {
		if got := hostnamesIntersect(tc.a, tc.b); got != tc.want {
			t.Errorf("hostnamesIntersect(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := hostnamesIntersect(tc.b, tc.a); got != tc.want {
			t.Errorf("hostnamesIntersect(%q, %q) = %v, want %v", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestMalformedInput(t *testing.T) {
	files := []string{"gateway.yaml", "services.yaml", "route_malformed.yaml"}
	analysistest.Run(t, ParentRefs{}, []analysistest.Case{{Name: "malformed routes", Files: files,
		Want: []string{"RG1008 GRPCRoute apps/nospec"}}})
	// The word port reads as absent: the backend lacks a port, nothing panics.
	analysistest.Run(t, BackendRefs{}, []analysistest.Case{{Name: "malformed routes", Files: files,
		Want: []string{"RG1105 HTTPRoute apps/word-port"}}})
	analysistest.Run(t, Listeners{}, []analysistest.Case{{Name: "malformed gateway", Files: files}})
	analysistest.Run(t, RouteConflicts{}, []analysistest.Case{{Name: "malformed routes", Files: files}})
}

func TestDanglingOnlyWhereTheKindIsRendered(t *testing.T) {
	base := []string{"gateway.yaml", "services.yaml"}
	with := func(f ...string) []string { return append(append([]string{}, base...), f...) }
	analysistest.Run(t, BackendRefs{}, []analysistest.Case{
		{Name: "route next to a Service another app deploys", Files: with("backend_next_to_route.yaml"),
			Want: []string{"RG0001 HTTPRoute argocd/argocd"}},
		{Name: "the app renders the Namespace: dangling", Files: with("backend_next_to_route.yaml", "namespace_argocd.yaml"),
			Want: []string{"RG1101 HTTPRoute argocd/argocd"}},
		{Name: "unknown and invalid backend kinds", Files: with("backend_kinds.yaml"),
			Want: []string{"RG0005 HTTPRoute apps/kinds", "RG0006 HTTPRoute apps/kinds"}},
	})
	analysistest.Run(t, BackendRefs{}, []analysistest.Case{
		{Name: "an unrendered release covers the namespace", Files: with("backend_next_to_route.yaml", "namespace_argocd.yaml"),
			Unrendered: []analysis.UnrenderedScope{{Namespace: "argocd", Reason: "HelmRelease argocd/argo-cd: chart not rendered"}},
			Want:       []string{"RG0001 HTTPRoute argocd/argocd"}},
	})
}

func TestListenerSets(t *testing.T) {
	files := []string{"gateway.yaml", "services.yaml", "listenersets.yaml"}
	analysistest.Run(t, ListenerSets{}, []analysistest.Case{
		{Name: "not admitted, no parent", Files: files,
			Want: []string{"RG1207 ListenerSet team/extra", "RG1207 ListenerSet infra/orphan"}},
	})
	analysistest.Run(t, ParentRefs{}, []analysistest.Case{
		{Name: "routes to ListenerSets", Files: files,
			Want: []string{"RG1002 HTTPRoute apps/bad-section", "RG1001 HTTPRoute apps/ls-missing"}},
	})
	analysistest.Run(t, Listeners{}, []analysistest.Case{
		{Name: "collisions with the Gateway's listeners", Files: files,
			Want: []string{"RG1202 ListenerSet infra/late", "RG1202 ListenerSet infra/late"}},
	})
}

func TestListenerProtocolsAndKinds(t *testing.T) {
	analysistest.Run(t, Listeners{}, []analysistest.Case{
		{Name: "unsupported protocol, invalid route kinds", Files: []string{"listeners_protocols.yaml"},
			Want: []string{"RG1205 Gateway infra/protocols", "RG1206 Gateway infra/protocols", "RG1206 Gateway infra/protocols"}},
	})
}

func TestTLSReferences(t *testing.T) {
	analysistest.Run(t, Listeners{}, []analysistest.Case{
		{Name: "listener certificateRefs", Files: []string{"tls_refs.yaml"},
			Want: []string{"RG0005 Gateway tls/edge", "RG0006 Gateway tls/edge", "RG1401 Gateway tls/edge", "RG1402 Gateway tls/edge"}},
	})
	analysistest.Run(t, GatewayTLS{}, []analysistest.Case{
		{Name: "frontend validation and backend client certificate", Files: []string{"gateway_tls.yaml"},
			Want: []string{"RG0005 Gateway mtls/mtls", "RG1204 Gateway mtls/mtls", "RG1401 Gateway mtls/mtls", "RG1404 Gateway mtls/mtls"}},
	})
	analysistest.Run(t, Listeners{}, []analysistest.Case{
		{Name: "un-prefixed TLS option", Files: []string{"gateway_tls.yaml"}, Want: []string{"RG1404 Gateway mtls/mtls"}},
	})
	analysistest.Run(t, BackendTLSPolicies{}, []analysistest.Case{
		{Name: "targets, CA references, conflicts", Files: []string{"services.yaml", "backendtls.yaml"},
			Want: []string{"RG0005 BackendTLSPolicy apps/badkind", "RG1402 BackendTLSPolicy apps/emptyca",
				"RG1403 BackendTLSPolicy apps/gone", "RG1403 BackendTLSPolicy apps/noport", "RG1405 BackendTLSPolicy apps/later"}},
	})
}

func TestParametersRefs(t *testing.T) {
	analysistest.Run(t, ParametersRefs{}, []analysistest.Case{
		{Name: "GatewayClass and Gateway parametersRefs", Files: []string{"params.yaml"},
			Want: []string{"RG1501 GatewayClass eg", "RG0006 Gateway infra/p2", "RG0005 Gateway infra/p3"}},
		{Name: "a Secret where the app renders none cannot be checked", Files: []string{"params_secret.yaml"},
			Want: []string{"RG0001 GatewayClass cloudflare", "RG1501 GatewayClass tunnel"}},
		{Name: "Contour's ContourDeployment is a known parameters kind", Files: []string{"params_contour.yaml"}},
	})
}
