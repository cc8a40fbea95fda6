package apiserver

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestIstioCRDs validates Istio objects against the bundled Istio CRDs in
// every version they serve: valid objects pass, and broken ones are
// rejected for their schema (types, enums, required fields, unknown
// fields) and CEL rules with the CRD's messages.
func TestIstioCRDs(t *testing.T) {
	cat := NewCatalog(CatalogOptions{})
	tests := []struct {
		name  string
		doc   string
		class Class  // 0: valid
		want  string // a substring of the violation
		at    string // its field
	}{
		{name: "valid VirtualService", doc: `{kind: VirtualService, spec: {hosts: [shop], http: [{timeout: 5s, retries: {attempts: 3, perTryTimeout: 2s},
			route: [{destination: {host: shop, subset: v1}, weight: 90}, {destination: {host: shop, subset: v2}, weight: 10}]}]}}`},
		{name: "duration that is not one", doc: `{kind: VirtualService, spec: {hosts: [shop], http: [{timeout: 5 seconds, route: [{destination: {host: shop}}]}]}}`,
			class: Rule, want: "must be a valid duration greater than 1ms", at: "spec.http[0].timeout"},
		{name: "CORS max age under a millisecond", doc: `{kind: VirtualService, spec: {hosts: [shop], http: [{corsPolicy: {maxAge: 0s}, route: [{destination: {host: shop}}]}]}}`,
			class: Rule, want: "must be a valid duration greater than 1ms", at: "spec.http[0].corsPolicy.maxAge"},
		{name: "weight of the wrong type", doc: `{kind: VirtualService, spec: {hosts: [shop], http: [{route: [{destination: {host: shop}, weight: ninety}]}]}}`,
			class: Schema, want: "must be of type integer", at: "spec.http[0].route[0].weight"},
		{name: "misspelled field", doc: `{kind: VirtualService, spec: {hosts: [shop], http: [{rout: [{destination: {host: shop}}]}]}}`,
			class: UnknownField, want: `unknown field "spec.http[0].rout"`, at: "spec.http[0].rout"},

		{name: "valid DestinationRule", doc: `{kind: DestinationRule, spec: {host: shop, trafficPolicy: {loadBalancer: {simple: ROUND_ROBIN}},
			subsets: [{name: v1, labels: {version: v1}}]}}`},
		{name: "unknown load balancer", doc: `{kind: DestinationRule, spec: {host: shop, trafficPolicy: {loadBalancer: {simple: FASTEST}}}}`,
			class: Schema, want: `Unsupported value: "FASTEST"`, at: "spec.trafficPolicy.loadBalancer.simple"},
		{name: "subset without name", doc: `{kind: DestinationRule, spec: {host: shop, subsets: [{labels: {version: v1}}]}}`,
			class: Schema, want: "Required value", at: "spec.subsets[0].name"},
		{name: "wildcard label key in a workload selector", doc: `{kind: DestinationRule, spec: {host: shop, workloadSelector: {matchLabels: {"app*": shop}}}}`,
			class: Rule, want: "wildcard not allowed in label key match", at: "spec.workloadSelector.matchLabels"},

		{name: "valid Gateway", doc: `{kind: Gateway, spec: {selector: {istio: ingressgateway}, servers: [{port: {number: 443, name: https, protocol: HTTPS},
			hosts: ["*.example.com"], tls: {mode: SIMPLE, credentialName: wildcard}}]}}`},
		{name: "two kinds of credentials", doc: `{kind: Gateway, spec: {servers: [{port: {number: 443, name: https, protocol: HTTPS},
			hosts: ["*"], tls: {mode: SIMPLE, credentialName: a, credentialNames: [b]}}]}}`,
			class: Rule, want: "only one of credentialName or credentialNames can be set", at: "spec.servers[0].tls"},
		{name: "port number of the wrong type", doc: `{kind: Gateway, spec: {servers: [{port: {number: https, name: https, protocol: HTTPS}, hosts: ["*"]}]}}`,
			class: Schema, want: "must be of type integer", at: "spec.servers[0].port.number"},

		{name: "valid ServiceEntry", doc: `{kind: ServiceEntry, spec: {hosts: [api.example.net], ports: [{number: 443, name: https, protocol: TLS}], resolution: DNS, location: MESH_EXTERNAL}}`},
		{name: "wildcard host", doc: `{kind: ServiceEntry, spec: {hosts: ["*"], ports: [{number: 443, name: https, protocol: TLS}], resolution: DNS}}`,
			class: Rule, want: "hostname cannot be wildcard", at: "spec.hosts[0]"},
		{name: "endpoints without resolution", doc: `{kind: ServiceEntry, spec: {hosts: [db.example.net], ports: [{number: 5432, name: pg, protocol: TCP}], endpoints: [{address: 192.0.2.1}]}}`,
			class: Rule, want: "NONE mode cannot set endpoints", at: "spec"},
		{name: "one port number twice", doc: `{kind: ServiceEntry, spec: {hosts: [db.example.net], resolution: DNS, ports: [{number: 5432, name: a, protocol: TCP}, {number: 5432, name: b, protocol: TCP}]}}`,
			class: Rule, want: "port number cannot be duplicated", at: "spec.ports"},

		{name: "valid AuthorizationPolicy", doc: `{kind: AuthorizationPolicy, spec: {selector: {matchLabels: {app: shop}}, action: ALLOW,
			rules: [{from: [{source: {principals: ["cluster.local/ns/apps/sa/web"]}}], to: [{operation: {methods: [GET]}}]}]}}`},
		{name: "selector and targetRef", doc: `{kind: AuthorizationPolicy, spec: {selector: {matchLabels: {app: shop}}, targetRef: {kind: Gateway, group: gateway.networking.k8s.io, name: public}}}`,
			class: Rule, want: "only one of targetRefs or selector can be set", at: "spec"},
		{name: "unknown action", doc: `{kind: AuthorizationPolicy, spec: {action: DENYY}}`,
			class: Schema, want: `Unsupported value: "DENYY"`, at: "spec.action"},

		{name: "valid PeerAuthentication", doc: `{kind: PeerAuthentication, spec: {selector: {matchLabels: {app: shop}}, mtls: {mode: STRICT}, portLevelMtls: {"8080": {mode: PERMISSIVE}}}}`},
		{name: "port-level mTLS without selector", doc: `{kind: PeerAuthentication, spec: {portLevelMtls: {"8080": {mode: DISABLE}}}}`,
			class: Rule, want: "portLevelMtls requires selector", at: "spec"},
		{name: "sidecar selector with a wildcard", doc: `{kind: Sidecar, spec: {workloadSelector: {labels: {app: "shop*"}}}}`,
			class: Rule, want: "wildcard is not supported in selector", at: "spec.workloadSelector.labels[app]"},
	}
	for _, tc := range tests {
		var doc map[string]any
		if err := yaml.Unmarshal([]byte(tc.doc), &doc); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		kind, _ := doc["kind"].(string)
		group := "networking.istio.io"
		if kind == "AuthorizationPolicy" || kind == "PeerAuthentication" {
			group = "security.istio.io"
		}
		cands := cat.Lookup(group, kind)
		if len(cands) != 1 || cands[0].CRD == nil {
			t.Fatalf("%s: bundled CRD of %s: %+v", tc.name, kind, cands)
		}
		crd := cands[0].CRD
		for _, version := range crd.ServedVersions() {
			body := map[string]any{"apiVersion": group + "/" + version, "kind": kind, "metadata": map[string]any{"name": "x"}}
			body["spec"] = doc["spec"]
			res, err := validateCompared(t, crd, version, "apps", body)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.name, version, err)
			}
			if tc.class == 0 {
				for _, v := range res.Violations {
					t.Errorf("%s (%s): valid object rejected: %s", tc.name, version, v)
				}
				continue
			}
			found := false
			for _, v := range res.Violations {
				found = found || v.Class == tc.class && v.Field == tc.at && strings.Contains(v.Message, tc.want)
			}
			if !found {
				t.Errorf("%s (%s): want class %d at %s with %q, got %v", tc.name, version, tc.class, tc.at, tc.want, res.Violations)
			}
		}
	}
}
