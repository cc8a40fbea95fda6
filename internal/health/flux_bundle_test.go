package health

import (
	"strings"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/runtime/cel"
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
