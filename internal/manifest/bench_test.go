package manifest

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// syntheticStream returns n routing objects (Service, HTTPRoute, Deployment
// in turn) as one YAML stream, about 0.6 KiB per object.
func syntheticStream(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		ns := fmt.Sprintf("team-%d", i%50)
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, "---\n# service %d\napiVersion: v1\nkind: Service\nmetadata:\n  name: svc-%d\n  namespace: %s\n  labels:\n    app: svc-%d\n    team: %s\nspec:\n  selector:\n    app: svc-%d\n  ports:\n    - name: http\n      port: 80\n      targetPort: 8080\n", i, i, ns, i, ns, i)
		case 1:
			fmt.Fprintf(&b, "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: route-%d\n  namespace: %s\nspec:\n  parentRefs:\n    - name: shared\n      namespace: gateway-infra\n      sectionName: https\n  hostnames:\n    - svc-%d.example.com\n  rules:\n    - matches:\n        - path:\n            type: PathPrefix\n            value: /\n      backendRefs:\n        - name: svc-%d\n          port: 80\n          weight: 100\n", i, ns, i, i-1)
		default:
			fmt.Fprintf(&b, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: deploy-%d\n  namespace: %s\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: svc-%d\n  template:\n    metadata:\n      labels:\n        app: svc-%d\n    spec:\n      containers:\n        - name: app\n          image: ghcr.io/example/app:1.%d.0\n          ports:\n            - containerPort: 8080\n", i, ns, i, i, i)
		}
	}
	return b.Bytes()
}

// BenchmarkDecode10k compares routeguard's decoder (with source positions)
// with what Argo CD and kubectl do: split the stream with apimachinery's
// YAML reader and unmarshal each document through sigs.k8s.io/yaml into
// unstructured objects (no positions).
func BenchmarkDecode10k(b *testing.B) {
	const n = 10000
	data := syntheticStream(n)
	b.Run("routeguard", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			objs, err := Decode("bench.yaml", data)
			if err != nil || len(objs) != n {
				b.Fatalf("%d objects, %v", len(objs), err)
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "objects/s")
	})
	b.Run("apimachinery-yaml", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			r := utilyaml.NewYAMLReader(bufioReader(data))
			count := 0
			for {
				doc, err := r.Read()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				var u unstructured.Unstructured
				if err := yaml.Unmarshal(doc, &u.Object); err != nil {
					b.Fatal(err)
				}
				if len(u.Object) > 0 {
					count++
				}
			}
			if count != n {
				b.Fatalf("%d objects", count)
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "objects/s")
	})
}

// BenchmarkWriteYAML10k compares routeguard's emitter with
// sigs.k8s.io/yaml.Marshal (JSON round trip + generic encoder), which is
// what most Kubernetes tools use to print objects.
func BenchmarkWriteYAML10k(b *testing.B) {
	objs, err := Decode("bench.yaml", syntheticStream(10000))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("routeguard", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := WriteYAML(io.Discard, objs); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(objs)*b.N)/b.Elapsed().Seconds(), "objects/s")
	})
	b.Run("sigs-yaml", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			for _, o := range objs {
				if _, err := yaml.Marshal(o.Body); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(len(objs)*b.N)/b.Elapsed().Seconds(), "objects/s")
	})
}
