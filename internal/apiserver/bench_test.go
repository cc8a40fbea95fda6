package apiserver

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/routeguard/routeguard/internal/crds"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/synth"
)

// BenchmarkCompile measures what the first object of a kind costs a
// process: reading the bundled CRD, parsing it and compiling one version
// (structural schema, OpenAPI validator, CEL programs): "one-object"
// compiles the CEL rules an object of benchDocs reaches, as routeguard
// does, "all-rules" every rule of the version, as the API server does.
func BenchmarkCompile(b *testing.B) {
	idx := crds.Bundled()
	for _, gk := range [][2]string{{"gateway.networking.k8s.io", "HTTPRoute"}, {"gateway.networking.k8s.io", "Gateway"},
		{"networking.istio.io", "VirtualService"}, {"networking.istio.io", "DestinationRule"}} {
		e := idx.Find(gk[0], gk[1])[0]
		var body map[string]any
		if doc, ok := benchDocs[gk[1]]; ok {
			objs, err := manifest.Decode(gk[1], []byte(doc))
			if err != nil {
				b.Fatal(err)
			}
			body = objs[0].Body
		} else {
			body = map[string]any{"apiVersion": gk[0] + "/v1", "kind": gk[1], "metadata": map[string]any{"name": "x"},
				"spec": map[string]any{"gatewayClassName": "x", "listeners": []any{map[string]any{"name": "http", "port": int64(80), "protocol": "HTTP"}}}}
		}
		for _, all := range []bool{false, true} {
			b.Run(gk[1]+"/"+map[bool]string{false: "one-object", true: "all-rules"}[all], func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					data, err := crds.Read(e)
					if err != nil {
						b.Fatal(err)
					}
					c, err := parseCRDJSON(data, "bench")
					if err != nil {
						b.Fatal(err)
					}
					if err := c.Compile("v1", body); err != nil {
						b.Fatal(err)
					}
					if all {
						cv, _ := c.compile("v1")
						cv.rules.rulesFor(cv.rules.all())
					}
				}
			})
		}
	}
}

// benchDocs are an object of each kind the synthetic repositories hold.
var benchDocs = map[string]string{
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

// BenchmarkValidate measures one object of each kind the synthetic
// repositories hold, once its CRD is compiled.
func BenchmarkValidate(b *testing.B) {
	cat := NewCatalog(CatalogOptions{GatewayAPIChannel: crds.Standard})
	for _, kind := range []string{"HTTPRoute", "VirtualService", "DestinationRule", "Service", "Deployment"} {
		objs, err := manifest.Decode(kind, []byte(benchDocs[kind]))
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

// syntheticJob is a custom resource of a synthetic repository and the
// bundled CRD it is validated against.
type syntheticJob struct {
	o   *manifest.Object
	crd *CRD
}

// syntheticCustomResources returns the custom resources of routeguard-synth's
// repository of about objects objects (HTTPRoutes, VirtualServices,
// DestinationRules, Gateways), in file order.
func syntheticCustomResources(tb testing.TB, objects int) []syntheticJob {
	tb.Helper()
	opts := synth.Options{Seed: 1}
	opts.Services = synth.ForObjects(objects, opts)
	repo, err := synth.Generate(opts)
	if err != nil {
		tb.Fatal(err)
	}
	cat := NewCatalog(CatalogOptions{GatewayAPIChannel: crds.Standard})
	var jobs []syntheticJob
	for _, p := range slices.Sorted(maps.Keys(repo.Files)) {
		objs, err := manifest.Decode(p, repo.Files[p])
		if err != nil {
			tb.Fatal(err)
		}
		for _, o := range objs {
			if !IsBuiltinGroup(o.Group()) {
				jobs = append(jobs, syntheticJob{o, cat.Lookup(o.Group(), o.Kind)[0].CRD})
			}
		}
	}
	return jobs
}

// BenchmarkValidateSynthetic validates the custom resources of the
// synthetic repository of 10,000 objects against their bundled CRDs,
// serially, once their versions are compiled: "cached" as routeguard does
// (the CEL rules' schema adaptor and the OpenAPI validators of fields and
// items kept per compiled version), "upstream" exactly as apiextensions
// ships it (TestCachedSynthetic shows both give the same results).
func BenchmarkValidateSynthetic(b *testing.B) {
	jobs := syntheticCustomResources(b, 10000)
	ctx := context.Background()
	for _, cached := range []bool{true, false} {
		versions := map[plainKey]*compiled{}
		for _, j := range jobs {
			k := plainKey{j.crd, j.o.Version()}
			if versions[k] != nil {
				continue
			}
			cv, err := j.crd.compile(k.version)
			if !cached {
				cv, err = j.crd.build(k.version, false)
			}
			if err != nil {
				b.Fatal(err)
			}
			versions[k] = cv
		}
		name := map[bool]string{true: "cached", false: "upstream"}[cached]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, j := range jobs {
					if _, err := j.crd.validate(ctx, versions[plainKey{j.crd, j.o.Version()}], "ns", j.o.Body); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(len(jobs)), "objects")
		})
	}
}
