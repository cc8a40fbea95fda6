package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/synth/fluxrepo"
)

// randomChart is a chart whose test Pod is named with randAlphaNum and
// whose Deployment carries a random rollme annotation and a uuidv4, as
// public charts do; its HTTPRoute's weight comes from the values.
func randomChart(weight string) fluxrepo.Files {
	return fluxrepo.Files{
		// The same chart through Kustomize's helmCharts (the helm shim).
		"kust/kustomization.yaml": "helmGlobals:\n  chartHome: ..\nhelmCharts:\n  - name: chart\n    releaseName: web\n",
		"chart/Chart.yaml":        "apiVersion: v2\nname: web\nversion: 1.0.0\n",
		"chart/values.yaml":       "weight: " + weight + "\n",
		"chart/templates/test-pod.yaml": `apiVersion: v1
kind: Pod
metadata:
  name: web-test-{{ randAlphaNum 5 | lower }}
  annotations: {helm.sh/hook: test}
spec:
  containers: [{name: t, image: "busybox:1.36", command: [wget, web]}]
`,
		"chart/templates/deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
      annotations: {rollme: {{ randAlphaNum 5 | quote }}, id: {{ uuidv4 | quote }}}
    spec:
      containers: [{name: web, image: "nginx:1.27"}]
`,
		"chart/templates/route.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web}
spec:
  rules:
  - backendRefs: [{name: web, port: 80, weight: {{ .Values.weight }}}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}, ports: [{port: 80}]}
`,
	}
}

// A chart that names objects with Sprig's random functions renders the
// same at both revisions: a change of its values shows the weight change,
// no Pod removed and another added, no annotation changed; and the same
// review twice is the same bytes (templatelimit's seeded random stream).
func TestDiffRandomChartIsStable(t *testing.T) {
	dir, hashes := fluxCommits(t, randomChart("90"), randomChart("50"))
	// One app a review: both render the same objects (kustomize 5.8
	// leaves helmCharts' objects in no namespace).
	for _, app := range []string{"chart", "kust"} {
		args := []string{"diff", "--base", hashes[0], "--head", hashes[1], "--diff", "both", "-o", "json", app}
		first, stderr, code := runIn(t, dir, args...)
		if code == ExitError {
			t.Fatalf("%s: exit %d: %s", app, code, stderr)
		}
		again, _, _ := runIn(t, dir, args...)
		if again != first {
			t.Fatalf("%s: the same review twice differs:\n%s\n---\n%s", app, first, again)
		}
		if !strings.Contains(first, "+      weight: 50") {
			t.Errorf("%s: the review does not show the weight change:\n%s\n%s", app, first, stderr)
		}
		for _, noise := range []string{"web-test-", "rollme", `"id"`} {
			if strings.Contains(first, noise) {
				t.Errorf("%s: the review shows %q, which the change did not touch:\n%s", app, noise, first)
			}
		}
	}
}

// What render prints may be applied, and so may what cmp generate gives
// Argo CD: there a chart's random functions are Helm's own, different on
// every render (a generated password is never a value anyone could
// compute), directly and through Kustomize's helmCharts.
func TestRenderRandomIsUnpredictable(t *testing.T) {
	dir, _ := fluxCommits(t, randomChart("90"))
	for _, app := range []string{"chart", "kust"} {
		a, stderr, code := runIn(t, dir, "render", filepath.Join(dir, app))
		b, _, _ := runIn(t, dir, "render", filepath.Join(dir, app))
		if code != ExitOK || !strings.Contains(a, "web-test-") {
			t.Fatalf("render %s: exit %d\n%s%s", app, code, a, stderr)
		}
		if a == b {
			t.Errorf("render %s gave the same random values twice:\n%s", app, a)
		}
	}
}

// cmp generate's output is what Argo CD applies: a chart's random values
// there are Helm's own, new on every generation (so a generated password
// is never one anyone could compute), as Argo CD's own Helm gives them.
func TestCMPGenerateRandomIsUnpredictable(t *testing.T) {
	dir, _ := fluxCommits(t, randomChart("90"))
	var outs []string
	for range 2 {
		out, stderr, code := runCMPIn(context.Background(), filepath.Join(dir, "chart"), argoEnv("web", "web", "chart", "PARAM_FAIL_ON", "never"), "cmp", "generate")
		if code != ExitOK && code != ExitFindings || !strings.Contains(out, "web-test-") {
			t.Fatalf("cmp generate: exit %d\n%s%s", code, out, stderr)
		}
		outs = append(outs, out)
	}
	if outs[0] == outs[1] {
		t.Errorf("cmp generate gave the same random values twice:\n%s", outs[0])
	}
}
