package flux

import (
	"errors"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
)

// TestSkipReasonReadsWell: the reason a Kustomization is skipped names its
// source kind with the right article ("an ExternalArtifact", not "a
// ExternalArtifact").
func TestSkipReasonReadsWell(t *testing.T) {
	for kind, want := range map[string]string{
		"ExternalArtifact": "its source is an ExternalArtifact,",
		"OCIRepository":    "its source is an OCIRepository,",
		"Bucket":           "its source is a Bucket,",
		"":                 "its source is (none),",
	} {
		o, err := manifest.FromBody(map[string]any{"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
			"metadata": map[string]any{"name": "apps", "namespace": "flux-system"},
			"spec":     map[string]any{"sourceRef": map[string]any{"kind": kind, "name": "x"}}}, manifest.Source{File: "ks.yaml", Line: 1})
		if err != nil {
			t.Fatal(err)
		}
		var skip *SkipError
		if err := (&Inventory{}).checkSourceRef(o); !errors.As(err, &skip) || !strings.Contains(skip.Reason, want) {
			t.Errorf("source kind %q: %v, want a reason containing %q", kind, err, want)
		}
	}
}
