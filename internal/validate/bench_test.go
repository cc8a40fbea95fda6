package validate

import (
	"context"
	"testing"

	"github.com/routeguard/routeguard/internal/crds"
	"github.com/routeguard/routeguard/internal/manifest"
)

// BenchmarkCompile measures what the first object of a kind costs a
// process: reading the bundled CRD, parsing it and compiling one version
// (structural schema, OpenAPI validator, CEL programs).
func BenchmarkCompile(b *testing.B) {
	idx := crds.Bundled()
	for _, gk := range [][2]string{{"gateway.networking.k8s.io", "HTTPRoute"}, {"gateway.networking.k8s.io", "Gateway"},
		{"networking.istio.io", "VirtualService"}, {"networking.istio.io", "DestinationRule"}} {
		e := idx.Find(gk[0], gk[1])[0]
		b.Run(gk[1], func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				data, err := crds.Read(e)
				if err != nil {
					b.Fatal(err)
				}
				objs, err := manifest.Decode(e.File, data)
				if err != nil {
					b.Fatal(err)
				}
				c, err := ParseCRD(objs[0].Body, "bench")
				if err != nil {
					b.Fatal(err)
				}
				if err := c.Compile("v1"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkValidate measures one object of each kind the synthetic
// repositories hold, once its CRD is compiled.
func BenchmarkValidate(b *testing.B) {
	docs := map[string]string{
		"HTTPRoute": `{apiVersion: gateway.networking.k8s.io/v1, kind: HTTPRoute, metadata: {name: svc, namespace: ns},
			spec: {parentRefs: [{name: public, sectionName: http}], hostnames: [svc.ns.example.com],
			rules: [{matches: [{path: {type: PathPrefix, value: /}}], backendRefs: [{name: target, port: 80}]}]}}`,
		"VirtualService": `{apiVersion: networking.istio.io/v1, kind: VirtualService, metadata: {name: svc, namespace: ns},
			spec: {hosts: [svc], http: [{route: [{destination: {host: target, subset: blue}, weight: 30}, {destination: {host: target, subset: green}, weight: 70}]}]}}`,
		"DestinationRule": `{apiVersion: networking.istio.io/v1, kind: DestinationRule, metadata: {name: svc, namespace: ns},
			spec: {host: svc, subsets: [{name: blue, labels: {version: blue}}, {name: green, labels: {version: green}}]}}`,
		"Service": `{apiVersion: v1, kind: Service, metadata: {name: svc, namespace: ns, labels: {app: svc}},
			spec: {selector: {app: svc}, ports: [{name: http, port: 80, targetPort: 8080}]}}`,
		"Deployment": `{apiVersion: apps/v1, kind: Deployment, metadata: {name: svc, namespace: ns}, spec: {replicas: 2,
			selector: {matchLabels: {app: svc}}, template: {metadata: {labels: {app: svc}},
			spec: {containers: [{name: app, image: "registry.example.com/svc:1.4.2", ports: [{name: http, containerPort: 8080}]}]}}}}`,
	}
	cat := NewCatalog(CatalogOptions{GatewayAPIChannel: crds.Standard})
	for _, kind := range []string{"HTTPRoute", "VirtualService", "DestinationRule", "Service", "Deployment"} {
		objs, err := manifest.Decode(kind, []byte(docs[kind]))
		if err != nil {
			b.Fatal(err)
		}
		o := objs[0]
		b.Run(kind, func(b *testing.B) {
			validate := func() (*Result, error) {
				if IsBuiltinGroup(o.Group()) {
					return ValidateBuiltin(context.Background(), "ns", o.Body)
				}
				return cat.Lookup(o.Group(), o.Kind)[0].CRD.ValidateCustomResource(context.Background(), o.Version(), "ns", o.Body)
			}
			if res, err := validate(); err != nil || len(res.Violations) > 0 {
				b.Fatalf("%v %v", err, res)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := validate(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
