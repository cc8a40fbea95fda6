package health

import (
	"strings"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/runtime/cel"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// TestFluxBundleInAKustomization puts the block under a Kustomization's spec,
// decodes it strictly into kustomize-controller's own API type and builds the
// status reader from spec.healthCheckExprs as its reconciler does (which
// rejects unparsable expressions and duplicate kinds).
func TestFluxBundleInAKustomization(t *testing.T) {
	checks, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	block, err := FluxHealthCheckExprs(checks, true)
	if err != nil {
		t.Fatal(err)
	}
	var indented strings.Builder
	for _, line := range strings.SplitAfter(string(block), "\n") {
		if line != "" {
			indented.WriteString("  " + line)
		}
	}
	doc := "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\n" +
		"spec:\n  interval: 10m\n  path: ./apps\n  prune: true\n  wait: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n" +
		indented.String()
	var ks kustomizev1.Kustomization
	if err := yaml.UnmarshalStrict([]byte(doc), &ks); err != nil {
		t.Fatalf("the block does not fit a Kustomization's spec: %v", err)
	}
	if len(ks.Spec.HealthCheckExprs) != len(checks) {
		t.Fatalf("%d healthCheckExprs, want %d", len(ks.Spec.HealthCheckExprs), len(checks))
	}
	if _, err := cel.NewStatusReader(ks.Spec.HealthCheckExprs); err != nil {
		t.Fatalf("kustomize-controller would mark the Kustomization Stalled: %v", err)
	}
}

// TestFluxBundleThroughKustomize: the block shares expressions through YAML
// anchors and aliases; a Kustomization holding it, built by Kustomize's own
// krusty as kustomize-controller builds its parent's path, comes out with
// every expression spelled out and equal to its check's, and no alias left.
func TestFluxBundleThroughKustomize(t *testing.T) {
	checks, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	block, err := FluxHealthCheckExprs(checks, true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(block), "&grpcroute-current") || !strings.Contains(string(block), "*grpcroute-current") {
		t.Fatalf("the route kinds do not share their expressions:\n%s", block)
	}
	var indented strings.Builder
	for _, line := range strings.SplitAfter(string(block), "\n") {
		if line != "" {
			indented.WriteString("  " + line)
		}
	}
	doc := "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\n" +
		"spec:\n  interval: 10m\n  path: ./apps\n  prune: true\n  wait: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n" +
		indented.String()
	fs := filesys.MakeFsInMemory()
	if err := fs.WriteFile("/app/ks.yaml", []byte(doc)); err != nil {
		t.Fatal(err)
	}
	if err := fs.WriteFile("/app/kustomization.yaml", []byte("resources: [ks.yaml]\n")); err != nil {
		t.Fatal(err)
	}
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, "/app")
	if err != nil {
		t.Fatalf("kustomize build: %v", err)
	}
	out, err := m.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "*grpcroute") || strings.Contains(string(out), "&grpcroute") {
		t.Errorf("kustomize left an anchor or alias in its output")
	}
	var ks kustomizev1.Kustomization
	if err := yaml.UnmarshalStrict(out, &ks); err != nil {
		t.Fatal(err)
	}
	byKind := map[string]Check{}
	for _, c := range checks {
		byKind[c.CEL.APIVersion+" "+c.CEL.Kind] = c
	}
	if len(ks.Spec.HealthCheckExprs) != len(checks) {
		t.Fatalf("%d healthCheckExprs after kustomize build, want %d", len(ks.Spec.HealthCheckExprs), len(checks))
	}
	for _, e := range ks.Spec.HealthCheckExprs {
		c, ok := byKind[e.APIVersion+" "+e.Kind]
		if !ok || e.Current != c.CEL.Current || e.Failed != c.CEL.Failed || e.InProgress != c.CEL.InProgress {
			t.Errorf("%s %s after kustomize build differs from its health.cel.yaml", e.APIVersion, e.Kind)
		}
	}
}
